/** The server's small pure parts: clock format, rate limiter, links, error mapping, ids and tokens. */
import { describe, expect, it } from "vitest";
import { bearerToken } from "../../server/auth";
import { isDatetime } from "../../server/clock";
import { ApiError, errorBody, toApiError } from "../../server/errors";
import { type ListPage, listLinks } from "../../server/presenter";
import { RateLimiter } from "../../server/rate-limit";
import { parseId } from "../../server/routes/notification-handlers";

describe("datetimes", () => {
  it.each([
    ["2024-02-29 00:00:00", true],
    ["0050-06-01 12:00:00", true],
    ["2023-02-29 00:00:00", false],
    ["2024-04-31 00:00:00", false],
    ["2024-01-01 23:59:60", false],
    ["2024-1-1 00:00:00", false],
    ["2024-01-01T00:00:00", false],
  ])("isDatetime(%j) is %s", (value, expected) => {
    expect(isDatetime(value)).toBe(expected);
  });
});

describe("RateLimiter", () => {
  it("opens a window at the first request and resets it 60 s later", () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(3, () => now);
    expect(limiter.hit("k")).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
    now += 10_000;
    expect(limiter.hit("k")).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 50 });
    expect(limiter.hit("k")).toMatchObject({ allowed: true, remaining: 0 });
    now += 49_001;
    expect(limiter.hit("k")).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 1 });
    now += 999;
    expect(limiter.hit("k")).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
  });

  it("keeps keys apart", () => {
    const limiter = new RateLimiter(1, () => 0);
    expect(limiter.hit("a").allowed).toBe(true);
    expect(limiter.hit("a").allowed).toBe(false);
    expect(limiter.hit("b").allowed).toBe(true);
  });
});

describe("listLinks", () => {
  const page = (n: number, totalPages: number): ListPage => ({
    records: [],
    page: n,
    resultsPerPage: 10,
    total: totalPages * 10,
    totalPages,
    collectionUrl: "https://api.example.com/api/notification-handlers",
    linkParams: [
      ["search", "a b&c"],
      ["results_per_page", "10"],
    ],
  });
  const url = (n: number) =>
    `https://api.example.com/api/notification-handlers?search=a+b%26c&results_per_page=10&page=${n}`;

  it("has no prev on the first page and no next on the last", () => {
    expect(listLinks(page(1, 1))).toEqual({
      first: url(1),
      last: url(1),
      next: null,
      prev: null,
      self: url(1),
    });
  });

  it("links both ways from the middle", () => {
    expect(listLinks(page(2, 3))).toEqual({
      first: url(1),
      last: url(3),
      next: url(3),
      prev: url(1),
      self: url(2),
    });
  });
});

describe("toApiError", () => {
  it("keeps an ApiError as it is", () => {
    const error = ApiError.notFound();
    expect(toApiError(error)).toBe(error);
  });

  it("maps Fastify's body errors to 413 and 415", () => {
    const tooLarge = Object.assign(new Error("too large"), {
      code: "FST_ERR_CTP_BODY_TOO_LARGE",
      statusCode: 413,
    });
    expect(toApiError(tooLarge).status).toBe(413);
    const mediaType = Object.assign(new Error("bad"), {
      code: "FST_ERR_CTP_INVALID_MEDIA_TYPE",
      statusCode: 415,
    });
    expect(toApiError(mediaType).status).toBe(415);
  });

  it("keeps the status of other client errors", () => {
    const error = Object.assign(new Error("Request body size did not match Content-Length"), {
      code: "FST_ERR_CTP_INVALID_CONTENT_LENGTH",
      statusCode: 400,
    });
    expect(errorBody(toApiError(error))).toEqual({
      errors: [
        { title: "Bad Request.", status: 400, detail: "Request body size did not match Content-Length" },
      ],
    });
  });

  it("turns anything else into a generic 500 without details", () => {
    expect(errorBody(toApiError(new TypeError("x is undefined at /srv/app.js")))).toEqual({
      errors: [{ title: "The server encountered an internal error.", status: 500 }],
    });
    expect(toApiError("a string").status).toBe(500);
  });
});

describe("parseId", () => {
  it.each([
    ["1", 1],
    ["007", undefined],
    ["0003", undefined],
    ["10", 10],
    ["9007199254740991", 9_007_199_254_740_991],
    ["0", undefined],
    ["9007199254740992", undefined],
    ["-1", undefined],
    ["1e3", undefined],
    ["", undefined],
    [" 1", undefined],
  ])("%j -> %s", (raw, expected) => {
    expect(parseId(raw)).toBe(expected);
  });
});

describe("bearerToken", () => {
  it.each([
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
    ["Bearer  abc ", "abc"],
    ["Bearer a.b-c_d~e+f/g==", "a.b-c_d~e+f/g=="],
    ["Bearer", undefined],
    ["Bearer a b", undefined],
    ["Basic abc", undefined],
    ["abc", undefined],
    [undefined, undefined],
  ])("%j -> %j", (header, expected) => {
    expect(bearerToken(header)).toBe(expected);
  });
});
