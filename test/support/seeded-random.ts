/** A small seeded generator (mulberry32) for generated test inputs: the same seed gives the same run. */

/** Numbers in [0, 1), and the draws the tests make from them. */
export interface SeededRandom {
  next: () => number;
  /** An integer from 0 to n - 1. */
  int: (n: number) => number;
  pick: <T>(items: readonly T[]) => T;
  /** True with probability p. */
  chance: (p: number) => boolean;
}

/** A generator seeded with `seed`; a failing test names its seed so the run can be repeated. */
export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick, chance: (p: number) => next() < p };
}
