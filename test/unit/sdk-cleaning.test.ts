/**
 * What deployed instances do to the values they store (tags stripped, quotes encoded, lengths cut,
 * whatsapp numbers as integers), and the comparison that counts such a value as unchanged.
 */
import { describe, expect, it } from "vitest";
import { cleanLikeDeployed, equalAfterCleaning, maxLengthOf } from "../../sdk/client/domain/cleaning";

describe("cleanLikeDeployed", () => {
  it("strips tags", () => {
    expect(cleanLikeDeployed("name", "<b>Ops</b> team")).toBe("Ops team");
    expect(cleanLikeDeployed("name", "a<script>x()</script>b")).toBe("ax()b");
    expect(cleanLikeDeployed("name", "<>empty")).toBe("empty");
  });

  it("keeps a < followed by whitespace, and drops an unclosed tag to the end", () => {
    expect(cleanLikeDeployed("name", "1 < 2")).toBe("1 < 2");
    expect(cleanLikeDeployed("name", "cut here<b and more")).toBe("cut here");
  });

  it("encodes \" as &#34; and ' as &#39;, and leaves & alone", () => {
    expect(cleanLikeDeployed("name", `Bob's "alerts" & more`)).toBe("Bob&#39;s &#34;alerts&#34; & more");
    expect(cleanLikeDeployed("webhook", "https://x.test/?a=1&b=2")).toBe("https://x.test/?a=1&b=2");
  });

  it("trims", () => {
    expect(cleanLikeDeployed("email", "  ops@example.com \n")).toBe("ops@example.com");
    expect(cleanLikeDeployed("name", "<i> </i> x ")).toBe("x");
  });

  it("cuts names at 128, most fields at 512, phone fields at 32", () => {
    expect(maxLengthOf("name")).toBe(128);
    expect(maxLengthOf("webhook")).toBe(512);
    expect(maxLengthOf("x_consumer_key")).toBe(512);
    expect(maxLengthOf("twilio")).toBe(32);
    expect(maxLengthOf("twilio_call")).toBe(32);
    expect(maxLengthOf("unknown_field")).toBe(512);
    expect(cleanLikeDeployed("name", "n".repeat(200))).toHaveLength(128);
    expect(cleanLikeDeployed("telegram_chat_id", "1".repeat(600))).toHaveLength(512);
    expect(cleanLikeDeployed("twilio", `+${"1".repeat(40)}`)).toBe(`+${"1".repeat(31)}`);
  });

  it("cuts by characters, not UTF-16 units", () => {
    const value = "é".repeat(127) + "😀😀";
    expect(Array.from(cleanLikeDeployed("name", value))).toHaveLength(128);
    expect(cleanLikeDeployed("name", value).endsWith("😀")).toBe(true);
  });

  it("stores whatsapp as an integer: drops + and leading zeros", () => {
    expect(cleanLikeDeployed("whatsapp", "+15551234567")).toBe("15551234567");
    expect(cleanLikeDeployed("whatsapp", "+0044201234567")).toBe("44201234567");
    expect(cleanLikeDeployed("whatsapp", " 15551234567 ")).toBe("15551234567");
    // PHP's (int) stops at the first non-digit and gives 0 without digits.
    expect(cleanLikeDeployed("whatsapp", "+1 555 123")).toBe("1");
    expect(cleanLikeDeployed("whatsapp", "call me")).toBe("0");
    expect(cleanLikeDeployed("whatsapp", "99999999999999999999")).toBe("9223372036854775807");
  });

  it("does not touch other phone fields beyond the common cleaning", () => {
    expect(cleanLikeDeployed("twilio", "+15551234567")).toBe("+15551234567");
  });
});

describe("equalAfterCleaning", () => {
  it("is true for an equal value", () => {
    expect(equalAfterCleaning("name", "Ops", "Ops")).toBe(true);
  });

  it("is true for the value as a deployed instance stores it", () => {
    expect(equalAfterCleaning("name", `Bob's <b>"x"</b>`, "Bob&#39;s &#34;x&#34;")).toBe(true);
    expect(equalAfterCleaning("whatsapp", "+15551234567", "15551234567")).toBe(true);
    expect(equalAfterCleaning("name", "n".repeat(130), "n".repeat(128))).toBe(true);
  });

  it("is true for the trimmed value (the reference server trims)", () => {
    expect(equalAfterCleaning("email", " a@b.co ", "a@b.co")).toBe(true);
  });

  it("is false for a different value", () => {
    expect(equalAfterCleaning("name", "Ops", "Dev")).toBe(false);
    expect(equalAfterCleaning("whatsapp", "+15551234567", "15551234568")).toBe(false);
    expect(equalAfterCleaning("name", "n".repeat(130), "n".repeat(129))).toBe(false);
  });
});
