// Array helpers for hot paths (every feed frame).

/**
 * Empties a reused array. `xs.length = 0` is a runtime call in V8 (about 80 ns, measured on this
 * machine's Node 20), while `pop` is inlined (about 1 ns): arrays reused per frame hold one or two
 * items, so popping them is the cheap way; long ones still take the one call.
 */
export const clear = (xs: Array<unknown>): void => {
  if (xs.length > 16) xs.length = 0
  else while (xs.length > 0) xs.pop()
}
