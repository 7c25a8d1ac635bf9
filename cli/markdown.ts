/** Text for Markdown: what Markdown or HTML would read as markup is escaped, so names show as typed. */
export function markdownText(text: string): string {
  return text.replace(/[\\|`*_[\]<>&#]/g, (c) => {
    if (c === "&") return "&amp;";
    if (c === "<") return "&lt;";
    if (c === ">") return "&gt;";
    return `\\${c}`;
  });
}
