/**
 * Keeping credentials out of what the client shows: the user:password of a URL, and the API key in
 * text a server or a library produced (Pulumi prints error messages verbatim).
 */

/** Drops user:password from a URL so it can go into a message. */
export function withoutCredentials(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.username === "" && parsed.password === "") return url;
  parsed.username = "";
  parsed.password = "";
  return parsed.toString();
}

/** Removes `secret` from text a server or a library produced. */
export function redactSecret(text: string, secret: string | undefined): string {
  return secret && text.includes(secret) ? text.replaceAll(secret, "[REDACTED]") : text;
}

/** Returns a transport error safe to attach as a cause (its message without `secret`). */
export function scrubError(err: unknown, secret: string | undefined): unknown {
  if (err instanceof Error) {
    const message = redactSecret(err.message, secret);
    if (message !== err.message) {
      const copy = new Error(message);
      (copy as { code?: unknown }).code = (err as { code?: unknown }).code;
      return copy;
    }
  }
  return err;
}
