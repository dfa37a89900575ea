// Every migration, in order. Add a file `NNNN_name.ts` (default export: an Effect needing SqlClient) and
// one line here; ids never change once released.
import { Migrator } from "@effect/sql"
import foundation from "./0001_foundation.js"

export const loader = Migrator.fromRecord({
  "0001_foundation": foundation,
})
