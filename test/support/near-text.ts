// For testing readers that must agree with JSON.parse: JSON.parse's value or null, and texts near a
// valid one (one or two characters inserted, removed or replaced somewhere).
import fc from "fast-check"

export const parseOrNull = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

export const nearText = (texts: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(texts, fc.nat(), fc.constantFrom("insert", "remove", "replace"), fc.string({ minLength: 1, maxLength: 2, unit: "binary" }))
    .map(([text, at, how, what]) => {
      const i = at % (text.length + 1)
      if (how === "insert") return text.slice(0, i) + what + text.slice(i)
      if (how === "remove") return text.slice(0, i) + text.slice(i + 1)
      return text.slice(0, i) + what + text.slice(i + 1)
    })
