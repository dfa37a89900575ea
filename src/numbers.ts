// Number helpers shared across layers.

/** To 6 decimals: venue prices and dollar figures carry at most that many; kills float noise of sums and `1 − p`. */
export const round6 = (x: number): number => Math.round(x * 1e6) / 1e6
