// The JSON text of a response body, with the rows of its listings written once each. A listing's rows
// are immutable values, and the same row objects come back request after request (GET /v2/trades
// serves a page of the same stored trades to every poller: operations/trades.ts keeps one row object
// per trade and trader record), so the text of each element of a top-level array is remembered by the
// element's identity, with its byte length. The text is exactly JSON.stringify's (src/http/json.test.ts).
//
// Rule this relies on: a value handed to the HTTP door is never mutated afterwards (STYLE.md: no
// mutating a published value), so a remembered text can never go stale.

/** A piece of JSON text with its length in UTF-8 bytes. */
export interface Json {
  readonly text: string
  readonly bytes: number
}

const json = (text: string): Json => ({ text, bytes: Buffer.byteLength(text) })

const texts = new WeakMap<object, Json>()

const elementJson = (element: unknown): Json => {
  if (typeof element !== "object" || element === null) return json(JSON.stringify(element) ?? "null")
  let known = texts.get(element)
  if (known === undefined) {
    known = json(JSON.stringify(element) ?? "null")
    texts.set(element, known)
  }
  return known
}

const arrayJson = (array: ReadonlyArray<unknown>): Json => {
  let text = "["
  let bytes = 2
  for (let i = 0; i < array.length; i++) {
    const element = elementJson(array[i])
    text += (i === 0 ? "" : ",") + element.text
    bytes += (i === 0 ? 0 : 1) + element.bytes
  }
  return { text: text + "]", bytes }
}

/**
 * JSON.stringify(body) and its byte length, with each element of the body's top-level arrays
 * stringified (and measured) once per object: a page's Content-Length is a sum, not a scan of the page.
 */
export const bodyJson = (body: unknown): Json => {
  if (typeof body !== "object" || body === null || Array.isArray(body) || typeof (body as { toJSON?: unknown }).toJSON === "function") {
    return json(JSON.stringify(body) ?? "null")
  }
  let text = "{"
  let bytes = 2
  let first = true
  for (const key of Object.keys(body)) {
    const value = (body as Record<string, unknown>)[key]
    const part = Array.isArray(value) ? arrayJson(value) : value === undefined ? undefined : JSON.stringify(value)
    if (part === undefined) continue // undefined, functions and symbols are left out, as JSON.stringify does
    const head = `${first ? "" : ","}${JSON.stringify(key)}:`
    first = false
    const piece = typeof part === "string" ? json(part) : part
    text += head + piece.text
    bytes += Buffer.byteLength(head) + piece.bytes
  }
  return { text: text + "}", bytes }
}
