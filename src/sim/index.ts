// The venue simulator's public surface: `startSim` (the server: venue sockets, REST history, control
// API) and the pure model for tests and tools.
export { startSim, type Sim, type SimOptions } from "./server.js"
export { SimModel, type ModelOptions } from "./model.js"
export type { ModelEvent, SimContract, SimGroup, SimTrade } from "./types.js"
export { encode } from "./encode.js"
