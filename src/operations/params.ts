// Input field schemas shared by operations that both doors decode: the query string gives strings
// ("50", "true", a key once or repeated), an MCP call gives JSON (50, true, a value or an array). Each
// schema here accepts both forms and decodes to one type, so an operation keeps a single input Schema.
// The messages start with the field name; the HTTP door uses such a message as the whole sentence.
import { Schema } from "effect"

/** The most values a repeatable filter takes (spec: Limits, "Repeated filter values"). */
export const MAX_REPEATED = 50

/** Decimal text only: `Number()` would also take "0x10", "1e1", " 10" and "Infinity". */
const DecimalText = Schema.compose(Schema.String.pipe(Schema.pattern(/^-?(?:\d+\.?\d*|\.\d+)$/)), Schema.NumberFromString)

const Numeric = Schema.Union(Schema.Number, DecimalText)

/** An integer from `min` to `max`, given as a number or a decimal string. */
export const IntParam = (name: string, min: number, max: number) =>
  Numeric.pipe(Schema.int(), Schema.between(min, max)).annotations({
    message: () => ({ message: `${name} must be an integer from ${min} to ${max}`, override: true }),
    jsonSchema: { type: "integer", minimum: min, maximum: max },
  })

/** A number from `min` to `max`, given as a number or a decimal string. */
export const NumberParam = (name: string, min: number, max: number) =>
  Numeric.pipe(Schema.between(min, max)).annotations({
    message: () => ({ message: `${name} must be a number from ${min} to ${max}`, override: true }),
    jsonSchema: { type: "number", minimum: min, maximum: max },
  })

/** A boolean, given as true/false or "true"/"false". */
export const BooleanParam = (name: string) =>
  Schema.Union(Schema.Boolean, Schema.transformLiterals(["true", true], ["false", false])).annotations({
    message: () => ({ message: `${name} must be true or false`, override: true }),
    jsonSchema: { type: "boolean" },
  })

/**
 * A repeatable filter: the query key repeated up to 50 times (OR-combined by the operation), or one
 * value, or over MCP a JSON array. Always decodes to an array; the 51st value is VALIDATION naming
 * the key.
 */
export const Repeatable = <A, I extends string>(name: string, item: Schema.Schema<A, I>) => {
  const many = Schema.Array(item).pipe(
    Schema.maxItems(MAX_REPEATED, { message: () => `${name} takes at most ${MAX_REPEATED} values` }),
  )
  const one = Schema.transform(item, Schema.Array(Schema.typeSchema(item)), {
    strict: true,
    decode: (a) => [a],
    encode: (as) => as[0] as A,
  })
  return Schema.Union(many, one)
}
