// What no request may carry, whatever its operation: text PostgreSQL cannot store (a NUL character, or a
// UTF-16 surrogate without its pair, which has no UTF-8 form) and JSON nested deeper than any input of
// this API. Checked once at each door before an operation's Schema runs (the HTTP door on the path,
// query and body; the MCP door on a tool's arguments), so such input is VALIDATION naming the field
// rather than a failed write (a 500, or a snapshot the store keeps refusing), and a body nested
// thousands deep is refused before anything recurses over it. Also refused here, as unknown: a field or
// query parameter named `__proto__` (made into an object by assignment it sets the prototype instead, so
// the Schemas never saw it and the request went ahead), and a raw `;` in the path (the router cuts the
// path there and reads the rest as parameters).

/** Deeper than any input of the API (a backtest sweep's signal is 4 levels) with room to spare. */
export const MAX_INPUT_DEPTH = 32

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const unstorable = (text: string): boolean => text.includes("\u0000") || LONE_SURROGATE.test(text)

const STORABLE = "must not hold a NUL character or an unpaired UTF-16 surrogate"

const PROTO = "__proto__"

const named = (path: string, index: string | number): string =>
  typeof index === "number" ? `${path}[${index}]` : path === "" ? index : `${path}.${index}`

/**
 * The first problem of a decoded JSON input as a sentence naming the field, or undefined when there is
 * none. `root` names the whole input ("The request body", "The arguments"); `path` the value within it.
 */
export const inputTextProblem = (value: unknown, root = "The request body", path = "", depth = 0): string | undefined => {
  if (typeof value === "string") return unstorable(value) ? `${path === "" ? root : path} ${STORABLE}` : undefined
  if (typeof value !== "object" || value === null) return undefined
  if (depth >= MAX_INPUT_DEPTH) return `${path === "" ? root : path} is nested more than ${MAX_INPUT_DEPTH} levels deep`
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = inputTextProblem(value[i], root, named(path, i), depth + 1)
      if (problem !== undefined) return problem
    }
    return undefined
  }
  // A `__proto__` key an earlier copy made by assignment became the object's prototype.
  const prototype = Object.getPrototypeOf(value) as unknown
  if (prototype !== Object.prototype && prototype !== null) return `Unknown field \`${named(path, PROTO)}\``
  for (const [key, item] of Object.entries(value)) {
    if (unstorable(key)) return `A field name ${STORABLE}`
    if (key === PROTO) return `Unknown field \`${named(path, key)}\``
    const problem = inputTextProblem(item, root, named(path, key), depth + 1)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** The first problem of a request target's path segments and query parameters (percent-decoded). */
export const urlTextProblem = (url: string): string | undefined => {
  const at = url.indexOf("?")
  const path = at < 0 ? url : url.slice(0, at)
  if (path.includes(";")) return "The path must not hold a `;` (send it percent-encoded, as %3B)"
  for (const segment of path.split("/")) {
    let decoded: string
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      continue // not percent-decodable: the router answers it
    }
    if (unstorable(decoded)) return `The path ${STORABLE}`
  }
  if (at < 0) return undefined
  for (const [name, value] of new URLSearchParams(url.slice(at + 1))) {
    if (unstorable(name)) return `A query parameter name ${STORABLE}`
    if (name === PROTO) return `Unknown query parameter \`${PROTO}\``
    if (unstorable(value)) return `${name} ${STORABLE}`
  }
  return undefined
}
