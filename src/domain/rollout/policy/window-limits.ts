/**
 * Bounds of a rollout's maintenance windows (docs/decisions.md §10.1), apart from their reader
 * (windows.ts, which needs croner) so that the console's plan form can offer them without it.
 */

/** Most windows a rollout may have. */
export const MAX_WINDOWS = 10;

/** Longest window, seconds (7 days). */
export const MAX_WINDOW_SECONDS = 7 * 24 * 3600;
