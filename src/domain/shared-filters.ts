// The decoded values of the spec's shared listing filters (Endpoints → Shared listing filters): what an
// operation has read from a request and a read (the trade index, the stream's matcher) tests rows with.
// Every key optional; lists are OR-combined. The request Schemas are in src/operations/filters.ts.
import type { Category, Kind, Venue } from "./enums.js"

export interface SharedFilterValues {
  readonly venue?: ReadonlyArray<Venue> | undefined
  readonly category?: ReadonlyArray<Category> | undefined
  readonly kind?: ReadonlyArray<Kind> | undefined
  readonly trader?: ReadonlyArray<string> | undefined
  /** Market refs: a row matches by its market ref (event or contract) or its exact contract. */
  readonly market?: ReadonlyArray<string> | undefined
  /** Outcome name or label, compared case-insensitively. */
  readonly outcome?: string | undefined
}
