// The storage services every command and door reads: SQL (migrated), Settings and Keys, on the database
// AppConfig names. `server` hosts the embedded dir; `cli` goes through the socket of the process holding it.
import { Layer } from "effect"
import { DbLive, type DbRole } from "./db.js"
import { KeysLive } from "./keys-live.js"
import { SettingsLive } from "./settings.js"

export const StoreLive = (role: DbRole) => Layer.mergeAll(KeysLive, SettingsLive).pipe(Layer.provideMerge(DbLive(role)))
