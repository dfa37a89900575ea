// Operations that exist only in tests, registered only in the servers tests start: a listing over a
// fixed array with a repeatable filter (paging, cursor misuse), a v1 route, a write route with a body,
// a route charging extra units, a route with a path parameter and one that dies.
import { Effect, Option, Schema } from "effect"
import { NotFound } from "../../src/domain/errors.js"
import { listing, operation } from "../../src/operations/operation.js"
import { paginate, PageParams } from "../../src/operations/paging.js"
import { Repeatable } from "../../src/operations/params.js"

export const Color = Schema.Literal("red", "green", "blue")
export const Row = Schema.Struct({ id: Schema.Int, color: Color })
export type Row = typeof Row.Type

const colors = Color.literals
/** 237 rows, ids 1..237, colors cycling. */
export const ROWS: ReadonlyArray<Row> = Array.from({ length: 237 }, (_, i) => ({ id: i + 1, color: colors[i % 3]! }))

const RowsInput = Schema.Struct({ ...PageParams, color: Schema.optional(Repeatable("color", Color)) })

const rowsListing = (name: string, path: `/v2/${string}`) =>
  listing({
    name,
    tool: name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
    method: "GET",
    path,
    scope: "read",
    input: RowsInput,
    row: Row,
    run: (input, ctx) =>
      paginate({
        listing: name,
        input,
        ctx,
        key: Schema.Int,
        keyOf: (row: Row) => row.id,
        fetch: (after, take) =>
          Effect.succeed(
            ROWS.filter((r) =>
              (input.color === undefined || input.color.includes(r.color)) &&
              Option.match(after, { onNone: () => true, onSome: (id) => r.id > id })
            ).slice(0, take),
          ),
      }),
  })

export const listTestRows = rowsListing("listTestRows", "/v2/test-rows")
export const listOtherRows = rowsListing("listOtherRows", "/v2/test-other-rows")

export const v1Echo = operation({
  name: "v1Echo", tool: "v1_echo", method: "GET", path: "/v1/test-echo", scope: "read",
  input: Schema.Struct({ name: Schema.optional(Schema.String) }),
  output: Schema.Struct({ greeting: Schema.String }),
  run: (input) => Effect.succeed({ greeting: `hello ${input.name ?? "world"}` }),
})

export const createThing = operation({
  name: "createThing", tool: "create_thing", method: "POST", path: "/v2/test-things", scope: "write", status: 201,
  input: Schema.Struct({
    label: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(20)),
    nested: Schema.optional(Schema.Struct({ n: Schema.Int })),
  }),
  output: Schema.Struct({ label: Schema.String, n: Schema.NullOr(Schema.Int) }),
  run: (input) => Effect.succeed({ label: input.label, n: input.nested?.n ?? null }),
})

export const getThing = operation({
  name: "getThing", tool: "get_thing", method: "GET", path: "/v2/test-things/:id", scope: "read",
  input: Schema.Struct({ id: Schema.String }),
  output: Schema.Struct({ id: Schema.String }),
  run: (input) => input.id === "1" ? Effect.succeed({ id: input.id }) : Effect.fail(new NotFound({ error: `No thing has id ${input.id}` })),
})

export const withIncludes = operation({
  name: "withIncludes", tool: "with_includes", method: "GET", path: "/v2/test-includes", scope: "read",
  input: Schema.Struct({ include: Schema.optional(Repeatable("include", Schema.Literal("a", "b", "c"))) }),
  output: Schema.Struct({ included: Schema.Array(Schema.String) }),
  run: (input, ctx) =>
    Effect.gen(function* () {
      const include = input.include ?? []
      yield* ctx.charge(include.length)
      yield* ctx.setHeader("x-trades-test", String(include.length))
      return { included: include }
    }),
})

export const dies = operation({
  name: "dies", tool: "dies", method: "GET", path: "/v2/test-defect", scope: "read",
  input: Schema.Struct({}),
  output: Schema.Struct({}),
  run: () => Effect.die(new Error("secret internals: password=hunter2")),
})

export const testOperations = [listTestRows, listOtherRows, v1Echo, createThing, getThing, withIncludes, dies] as const
