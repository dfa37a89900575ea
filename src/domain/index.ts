// The domain's public surface: Schemas of every enumeration, reference, resource, event and error.
export * from "./enums.js"
export * from "./errors.js"
export * from "./feed-events.js"
export * from "./refs.js"
