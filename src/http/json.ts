// The JSON text of a response body, with the rows of its listings written once each. A listing's rows
// are immutable values, and the same row objects come back request after request (GET /v2/trades
// serves a page of the same stored trades to every poller: operations/trades.ts keeps one row object
// per trade and trader record), so the text of each element of a top-level array is remembered by the
// element's identity. The text is exactly JSON.stringify's (src/http/json.test.ts).
//
// Rule this relies on: a value handed to the HTTP door is never mutated afterwards (STYLE.md: no
// mutating a published value), so a remembered text can never go stale.

const texts = new WeakMap<object, string>()

const elementJson = (element: unknown): string => {
  if (typeof element !== "object" || element === null) return JSON.stringify(element) ?? "null"
  let text = texts.get(element)
  if (text === undefined) {
    text = JSON.stringify(element) ?? "null"
    texts.set(element, text)
  }
  return text
}

const arrayJson = (array: ReadonlyArray<unknown>): string => {
  let out = "["
  for (let i = 0; i < array.length; i++) out += (i === 0 ? "" : ",") + elementJson(array[i])
  return out + "]"
}

/** JSON.stringify(body), with each element of the body's top-level arrays stringified once per object. */
export const bodyJson = (body: unknown): string => {
  if (typeof body !== "object" || body === null || Array.isArray(body) || typeof (body as { toJSON?: unknown }).toJSON === "function") {
    return JSON.stringify(body) ?? "null"
  }
  let out = "{"
  let first = true
  for (const key of Object.keys(body)) {
    const value = (body as Record<string, unknown>)[key]
    const text = Array.isArray(value) ? arrayJson(value) : JSON.stringify(value)
    if (text === undefined) continue // undefined, functions and symbols are left out, as JSON.stringify does
    out += `${first ? "" : ","}${JSON.stringify(key)}:${text}`
    first = false
  }
  return out + "}"
}
