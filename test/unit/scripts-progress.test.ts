/**
 * The progress lines of the long builds (`scripts/support/progress.ts`): a step's start, then its
 * duration.
 */
import { describe, expect, it } from "vitest";

import { formatDuration, step } from "../../scripts/support/progress";

describe("the long builds' progress", () => {
  it("says a step as it starts and, once done, how long it took", async () => {
    const lines: string[] = [];
    const result = await step(
      (line) => lines.push(line),
      "Building the thing",
      () => Promise.resolve(42),
    );
    expect(result).toBe(42);
    expect(lines).toEqual(["Building the thing...", expect.stringMatching(/^ {2}done in \d+\.\d s$/)]);
  });

  it("adds no done line to a step that fails: its error says why", async () => {
    const lines: string[] = [];
    const failing = step(
      (line) => lines.push(line),
      "Compiling",
      () => Promise.reject(new Error("go build failed")),
    );
    await expect(failing).rejects.toThrow("go build failed");
    expect(lines).toEqual(["Compiling..."]);
  });

  it("writes durations as people read them", () => {
    expect(formatDuration(420)).toBe("0.4 s");
    expect(formatDuration(9_949)).toBe("9.9 s");
    expect(formatDuration(12_345)).toBe("12 s");
    expect(formatDuration(185_000)).toBe("3 min 5 s");
  });
});
