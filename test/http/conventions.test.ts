// The HTTP conventions every route shares: envelopes (v2, v1, error), auth (401/403), unknown fields,
// malformed JSON, unknown routes, defects, keys in the URL, /healthz and /openapi.json.
import { request } from "node:http"
import { connect } from "node:net"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Health } from "../../src/operations/health.js"
import { call } from "../support/http-client.js"
import { startServer, type RunningServer } from "../support/http-server.js"
import { aPrincipal, memoryKeys } from "../support/memory-keys.js"
import { testOperations } from "../support/test-operations.js"

let server: RunningServer
let waiting: RunningServer
const get = (path: string, token: string | null = "full") => call(server.url, path, { token })
const post = (path: string, body: unknown, token = "full") => call(server.url, path, { token, method: "POST", body })

const keys = memoryKeys({
  full: aPrincipal(),
  reader: aPrincipal({ scopes: ["read"] }),
  lapsed: aPrincipal({ subscriptionActive: false }),
  counted: aPrincipal({ keyId: "key_counted" }),
})

beforeAll(async () => {
  server = await startServer({ operations: testOperations, keys })
  // A second server whose Health has a check that is not ready.
  const health = Layer.effectDiscard(
    Effect.flatMap(Health, (h) => h.register("database", Effect.succeed({ ready: false, detail: "migrating" }))),
  ).pipe(Layer.provideMerge(Health.layer))
  waiting = await startServer({ operations: testOperations, keys, health })
})
afterAll(async () => {
  await server.close()
  await waiting.close()
})

const expectError = (answer: { status: number; body: any }, status: number, code: string) => {
  expect(answer.status).toBe(status)
  expect(answer.body).toEqual({ success: false, error: expect.any(String), code })
}

describe("envelopes", () => {
  it("v2 object: { data }", async () => {
    const a = await get("/v2/test-things/1")
    expect(a.status).toBe(200)
    expect(a.body).toEqual({ data: { id: "1" } })
  })

  it("v2 listing: { data, nextCursor }", async () => {
    const a = await get("/v2/test-rows?limit=2")
    expect(a.status).toBe(200)
    expect(Object.keys(a.body).sort()).toEqual(["data", "nextCursor"])
    expect(a.body.data).toEqual([{ id: 1, color: "red" }, { id: 2, color: "green" }])
  })

  it("v1: { success: true, data }", async () => {
    const a = await get("/v1/test-echo?name=whale")
    expect(a.status).toBe(200)
    expect(a.body).toEqual({ success: true, data: { greeting: "hello whale" } })
  })

  it("a creation answers with the record's status", async () => {
    const a = await post("/v2/test-things", { label: "x", nested: { n: 3 } })
    expect(a.status).toBe(201)
    expect(a.body).toEqual({ data: { label: "x", n: 3 } })
  })

  it("an operation's error keeps its code and status", async () => {
    const a = await get("/v2/test-things/2")
    expectError(a, 404, "NOT_FOUND")
    expect(a.body.error).toBe("No thing has id 2")
  })
})

describe("authentication and scopes", () => {
  it("401 UNAUTHORIZED with www-authenticate when the key is missing", async () => {
    const a = await get("/v2/test-rows", null)
    expectError(a, 401, "UNAUTHORIZED")
    expect(a.headers.get("www-authenticate")).toBe("Bearer")
    expect(a.headers.get("x-ratelimit-limit")).toBeNull()
  })

  it("401 for an unknown key and for a malformed header", async () => {
    expectError(await get("/v2/test-rows", "nope"), 401, "UNAUTHORIZED")
    const basic = await fetch(`${server.url}/v2/test-rows`, { headers: { authorization: "Basic Zm9vOmJhcg==" } })
    expect(basic.status).toBe(401)
    expect(await basic.json()).toMatchObject({ code: "UNAUTHORIZED" })
  })

  it("403 SCOPE_REQUIRED for a read key on a write route, with rate headers", async () => {
    const a = await post("/v2/test-things", { label: "x" }, "reader")
    expectError(a, 403, "SCOPE_REQUIRED")
    expect(a.headers.get("x-ratelimit-limit")).toBe("120")
  })

  it("403 SCOPE_REQUIRED for an account without an active subscription", async () => {
    expectError(await get("/v2/test-things/1", "lapsed"), 403, "SCOPE_REQUIRED")
  })

  it("refuses a key in the query string with 401, even beside a valid header", async () => {
    for (const name of ["key", "api_key", "token", "access_token"]) {
      const a = await call(server.url, `/v2/test-rows?${name}=full`, { token: "full" })
      expectError(a, 401, "UNAUTHORIZED")
      expect(a.body.error).toContain(name)
    }
  })

  it("a read key reads", async () => {
    expect((await get("/v2/test-things/1", "reader")).status).toBe(200)
  })
})

describe("validation", () => {
  it("an unknown query parameter is VALIDATION naming it", async () => {
    const a = await get("/v2/test-rows?limit=2&colour=red")
    expectError(a, 400, "VALIDATION")
    expect(a.body.error).toContain("`colour`")
  })

  it("an unknown query parameter on a route without query is VALIDATION", async () => {
    const a = await get("/v2/test-things/1?x=1")
    expectError(a, 400, "VALIDATION")
    expect(a.body.error).toContain("`x`")
  })

  it("an unknown body field, top-level or nested, is VALIDATION naming it", async () => {
    const top = await post("/v2/test-things", { label: "x", extra: true })
    expectError(top, 400, "VALIDATION")
    expect(top.body.error).toContain("`extra`")
    const nested = await post("/v2/test-things", { label: "x", nested: { n: 1, m: 2 } })
    expectError(nested, 400, "VALIDATION")
    expect(nested.body.error).toContain("`nested.m`")
  })

  it("an unknown query parameter on a body route is VALIDATION", async () => {
    const a = await call(server.url, "/v2/test-things?dry=1", { token: "full", method: "POST", body: { label: "x" } })
    expectError(a, 400, "VALIDATION")
    expect(a.body.error).toContain("`dry`")
  })

  it("malformed JSON is VALIDATION", async () => {
    const a = await call(server.url, "/v2/test-things", { token: "full", method: "POST", rawBody: "{\"label\":" })
    expectError(a, 400, "VALIDATION")
    expect(a.body.error).toMatch(/JSON/)
  })

  it("no body is an empty object: its first missing field is named; a body that is not an object is VALIDATION", async () => {
    for (const headers of [{}, { "content-type": "application/json" }]) {
      const none = await call(server.url, "/v2/test-things", { token: "full", method: "POST", headers })
      expectError(none, 400, "VALIDATION")
      expect(none.body.error).toBe("`label` is required")
    }
    for (const rawBody of ["[1]", "\"x\"", "null", "3"]) {
      const notObject = await call(server.url, "/v2/test-things", { token: "full", method: "POST", rawBody })
      expectError(notObject, 400, "VALIDATION")
      expect(notObject.body.error, rawBody).toBe(rawBody === "null" ? "`label` is required" : "The request body must be a JSON object")
    }
  })

  it("text no store can hold (NUL, an unpaired surrogate) is VALIDATION naming the field, in the body, query and path", async () => {
    for (const label of ["a\\u0000b", "lone\\ud800", "\\udfffx"]) { // JSON escapes in the body text
      const a = await call(server.url, "/v2/test-things", { token: "full", method: "POST", rawBody: `{"label":"${label}"}` })
      expectError(a, 400, "VALIDATION")
      expect(a.body.error).toBe("label must not hold a NUL character or an unpaired UTF-16 surrogate")
    }
    const nested = await call(server.url, "/v2/test-things", { token: "full", method: "POST", rawBody: '{"label":"x","nested":{"n":1,"tags":["ok","\\u0000"]}}' })
    expectError(nested, 400, "VALIDATION")
    expect(nested.body.error).toBe("nested.tags[1] must not hold a NUL character or an unpaired UTF-16 surrogate")
    const key = await call(server.url, "/v2/test-things", { token: "full", method: "POST", rawBody: '{"la\\u0000bel":"x"}' })
    expect(key.body.error).toBe("A field name must not hold a NUL character or an unpaired UTF-16 surrogate")
    const paired = await post("/v2/test-things", { label: "🐋 ok" }) // a surrogate pair is text like any other
    expect(paired.status).toBe(201)
    const query = await get("/v2/test-rows?color=a%00b")
    expectError(query, 400, "VALIDATION")
    expect(query.body.error).toBe("color must not hold a NUL character or an unpaired UTF-16 surrogate")
    const path = await get("/v2/test-things/1%00")
    expectError(path, 400, "VALIDATION")
    expect(path.body.error).toBe("The path must not hold a NUL character or an unpaired UTF-16 surrogate")
  })

  it("input refused before any route reads it is answered after the key check: counted, with rate headers; no key is 401", async () => {
    const refusals = [
      () => call(server.url, "/v2/test-rows?color=a%00b", { token: "counted" }),
      () => call(server.url, "/v2/test-things", { token: "counted", method: "POST", rawBody: '{"label":"a\\u0000b"}' }),
      () => call(server.url, "/v2/test-things", { token: "counted", method: "POST", rawBody: "label=x", headers: { "content-type": "application/x-www-form-urlencoded" } }),
      () => call(server.url, "/v2/test-things/1%00", { token: "counted" }),
    ]
    let remaining = 120
    for (const refuse of refusals) {
      const a = await refuse()
      expectError(a, 400, "VALIDATION")
      expect(a.headers.get("x-ratelimit-limit")).toBe("120")
      expect(Number(a.headers.get("x-ratelimit-remaining"))).toBe(--remaining)
    }
    // Without a key the key is what is wrong.
    const anonymous = await call(server.url, "/v2/test-rows?color=a%00b", { token: null })
    expectError(anonymous, 401, "UNAUTHORIZED")
    // A path no route matches, and a route without a key check, still answer the input problem.
    expectError(await call(server.url, "/v2/no-such-route%00", { token: null }), 400, "VALIDATION")
    expectError(await call(server.url, "/healthz?x=a%00b", { token: null }), 400, "VALIDATION")
  })

  it("a `__proto__` query parameter or field is unknown, and a raw `;` in the path is refused (neither reaches an operation)", async () => {
    const query = await get("/v2/test-rows?__proto__=1")
    expectError(query, 400, "VALIDATION")
    expect(query.body.error).toBe("Unknown query parameter `__proto__`")
    const body = await call(server.url, "/v2/test-things", { token: "full", method: "POST", rawBody: '{"label":"x","__proto__":{"a":1}}' })
    expectError(body, 400, "VALIDATION")
    expect(body.body.error).toBe("Unknown field `__proto__`")
    for (const path of ["/v2/test-things/1;x", "/v2/test-things/1;limit=5"]) {
      const semicolon = await get(path)
      expectError(semicolon, 400, "VALIDATION")
      expect(semicolon.body.error).toBe("The path must not hold a `;` (send it percent-encoded, as %3B)")
    }
    expectError(await get("/v2/test-things/1%3Bx"), 404, "NOT_FOUND") // encoded, it is part of the id
  })

  it("a body nested deeper than any input is VALIDATION, not a stack overflow", async () => {
    for (const rawBody of ["[".repeat(3000) + "]".repeat(3000), '{"label":"x","nested":' + '{"a":'.repeat(3000) + "1" + "}".repeat(3001)]) {
      const a = await call(server.url, "/v2/test-things", { token: "full", method: "POST", rawBody })
      expectError(a, 400, "VALIDATION")
      expect(a.body.error).toMatch(/nested more than 32 levels deep/)
    }
  })

  it("a body must be sent as JSON: a form or another Content-Type is VALIDATION naming it; none is read as JSON", async () => {
    const send = (type: string | undefined, body: string) =>
      fetch(server.url + "/v2/test-things", {
        method: "POST", body,
        headers: { authorization: "Bearer full", ...(type === undefined ? {} : { "content-type": type }) },
      }).then(async (r) => ({ status: r.status, body: await r.json() as any }))
    for (const type of ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x", "application/octet-stream", "application/vnd.api+json"]) {
      const a = await send(type, type.startsWith("application/x-www") ? "label=x" : '{"label":"x"}')
      expect(a.status, type).toBe(400)
      expect(a.body, type).toEqual({ success: false, code: "VALIDATION", error: `Content-Type must be application/json (the body is JSON), not ${type}` })
    }
    for (const type of ["application/json", "application/json; charset=utf-8", "Application/JSON"]) {
      expect((await send(type, '{"label":"x"}')).status, type).toBe(201)
    }
    // No Content-Type at all (fetch would add text/plain): read as JSON.
    const status = await new Promise<number>((resolve, reject) => {
      const body = '{"label":"x"}'
      const req = request(server.url + "/v2/test-things", { method: "POST", headers: { authorization: "Bearer full", "content-length": String(body.length) } }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on("error", reject)
      req.end(body)
    })
    expect(status).toBe(201)
  })

  it("a missing or out-of-range field is VALIDATION naming it", async () => {
    const missing = await post("/v2/test-things", {})
    expectError(missing, 400, "VALIDATION")
    expect(missing.body.error).toContain("`label`")
    const long = await post("/v2/test-things", { label: "x".repeat(21) })
    expectError(long, 400, "VALIDATION")
    expect(long.body.error).toContain("`label`")
    const notInt = await get("/v2/test-rows?limit=2.5")
    expectError(notInt, 400, "VALIDATION")
    expect(notInt.body.error).toBe("limit must be an integer from 1 to 200")
  })
})

describe("built-in failures", () => {
  it("a request Node's parser refuses (bad framing, unknown method, huge headers) still gets the error envelope", async () => {
    const raw = (text: string) => new Promise<string>((resolve, reject) => {
      const { port } = new URL(server.url)
      const socket = connect(Number(port), "127.0.0.1", () => socket.end(text))
      let answer = ""
      socket.on("data", (chunk) => (answer += chunk.toString()))
      socket.on("end", () => resolve(answer))
      socket.on("error", reject)
    })
    for (const [text, sentence] of [
      ["POST /v2/test-things HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", "Malformed HTTP request"],
      ["POST /v2/test-things HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "Malformed HTTP request"],
      ["FOO /v2/test-rows HTTP/1.1\r\nHost: x\r\n\r\n", "Unknown HTTP method"],
      ["GET /v2/test-rows HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(70_000) + "\r\n\r\n", "The request headers are too large"],
    ] as const) {
      const answer = await raw(text)
      expect(answer.split("\r\n")[0], sentence).toBe("HTTP/1.1 400 Bad Request")
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toEqual({ success: false, error: sentence, code: "VALIDATION" })
    }
  })

  it("a request whose body does not arrive in full within the request timeout is answered 400 and its connection closed", async () => {
    const slow = await startServer({ operations: testOperations, keys, requestTimeoutMs: 400 })
    try {
      const { port } = new URL(slow.url)
      const started = performance.now()
      const answer = await new Promise<string>((resolve, reject) => {
        // 40 bytes announced, 9 sent, and the connection kept open.
        const socket = connect(Number(port), "127.0.0.1", () =>
          socket.write("POST /v2/test-things HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"label\":"))
        let text = ""
        socket.on("data", (chunk) => (text += chunk.toString()))
        socket.on("close", () => resolve(text))
        socket.on("error", reject)
      })
      expect(performance.now() - started).toBeLessThan(5_000)
      expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request")
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toEqual({
        success: false, error: "The request did not arrive in full within 0.4 seconds", code: "VALIDATION",
      })
    } finally {
      await slow.close()
    }
  })

  it("closing: a client going on sending on its kept-alive connection is told connection: close, and the server closes at once, not when the client stops", async () => {
    const closing = await startServer({ operations: testOperations, keys })
    const { port } = new URL(closing.url)
    const socket = connect(Number(port), "127.0.0.1")
    let text = ""
    let open = true
    socket.on("data", (chunk) => (text += chunk.toString()))
    socket.on("close", () => void (open = false))
    socket.on("error", () => void (open = false))
    const send = () => socket.write("GET /v2/test-rows HTTP/1.1\r\nHost: x\r\n\r\n")
    await new Promise((r) => socket.once("connect", r))
    send()
    await new Promise((r) => setTimeout(r, 200))
    expect(text.startsWith("HTTP/1.1 ")).toBe(true)
    // A request in progress when the server starts closing (its body not all sent), so the connection is
    // not idle then; its body completes after.
    const body = JSON.stringify({ label: "drain" })
    socket.write(`POST /v2/test-things HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`)
    await new Promise((r) => setTimeout(r, 100))
    const started = performance.now()
    const closed = closing.close().then(() => performance.now() - started)
    await new Promise((r) => setTimeout(r, 100))
    socket.write(body.slice(5))
    // Another request every 30 ms for 2 s, on the same connection, as long as it stays open.
    const until = performance.now() + 2_000
    while (open && performance.now() < until) {
      send()
      await new Promise((r) => setTimeout(r, 30))
    }
    const closeMs = await closed
    expect(closeMs).toBeLessThan(1_000)
    expect(open).toBe(false)
    // The request in progress was answered, telling the client to leave; nothing after it was left
    // unanswered on an open connection.
    const answers = text.split(/(?=HTTP\/1\.1 )/)
    expect(answers.length).toBeGreaterThanOrEqual(2)
    for (const answer of answers.slice(1)) expect(answer.toLowerCase()).toContain("connection: close")
  })

  it("a sentence quoting a long bad value cuts it to 80 characters", async () => {
    const answer = await get(`/v2/test-rows?color=${"p".repeat(10_000)}`)
    expectError(answer, 400, "VALIDATION")
    expect(answer.body.error).toBe(`Invalid value for \`color\`: Expected "red", "green" or "blue", actual "${"p".repeat(79)}… (10000 characters)`)
  })

  it("a cut value's stated length is the value's own: not its quotation marks, escapes or UTF-16 units", async () => {
    const escaped = await post("/v2/test-things", { label: '"\\'.repeat(50) })
    expectError(escaped, 400, "VALIDATION")
    expect(escaped.body.error).toMatch(/^Invalid value for `label`: Expected a string at most 20 character\(s\) long, actual "[\\"]{79}… \(100 characters\)$/)
    const emoji = await post("/v2/test-things", { label: "😀".repeat(100) })
    expectError(emoji, 400, "VALIDATION")
    expect(emoji.body.error).toMatch(/… \(100 characters\)$/)
  })

  it("a value outside a set of literals names every allowed value, not only the first", async () => {
    const answer = await get("/v2/test-rows?color=purple")
    expectError(answer, 400, "VALIDATION")
    expect(answer.body.error).toBe('Invalid value for `color`: Expected "red", "green" or "blue", actual "purple"')
  })

  it("a path parameter longer than the router's default 100 characters still reaches its operation, up to Node's header limit", async () => {
    for (const length of [300, 5_000, 16_000]) {
      const id = "x".repeat(length)
      const answer = await get(`/v2/test-things/${id}`)
      expectError(answer, 404, "NOT_FOUND")
      expect(answer.body.error).toBe(`No thing has id ${id}`) // the operation's answer, not "No route for …"
    }
  })

  it("an unknown route is a NOT_FOUND envelope", async () => {
    expectError(await get("/v2/no-such-thing"), 404, "NOT_FOUND")
    expectError(await get("/nothing", null), 404, "NOT_FOUND")
  })

  it("a defect is a 500 INTERNAL envelope without internals", async () => {
    const a = await get("/v2/test-defect")
    expectError(a, 500, "INTERNAL")
    expect(JSON.stringify(a.body)).not.toMatch(/secret|hunter2|Error/)
    expect(a.headers.get("x-ratelimit-remaining")).not.toBeNull()
  })
})

describe("healthz and openapi", () => {
  it("GET /healthz needs no key and reports ok", async () => {
    const a = await get("/healthz", null)
    expect(a.status).toBe(200)
    expect(a.body).toMatchObject({ status: "ok", waitingFor: [] })
  })

  it("GET /healthz is 503 naming what it waits for", async () => {
    const a = await call(waiting.url, "/healthz")
    expect(a.status).toBe(503)
    expect(a.body).toEqual({
      status: "waiting",
      waitingFor: ["database"],
      checks: { database: { ready: false, detail: "migrating" } },
    })
  })

  it("GET /openapi.json needs no key and documents the routes from the same schemas", async () => {
    const a = await get("/openapi.json", null)
    expect(a.status).toBe(200)
    expect(a.body.info.title).toBe("whalewatch")
    expect(Object.keys(a.body.paths)).toEqual(expect.arrayContaining(["/healthz", "/v2/test-rows", "/v1/test-echo", "/v2/test-things/{id}"]))
    const params = a.body.paths["/v2/test-rows"].get.parameters.map((p: { name: string }) => p.name)
    expect(params).toEqual(expect.arrayContaining(["limit", "cursor", "color"]))
  })
})
