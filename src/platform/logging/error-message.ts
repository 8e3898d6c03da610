/** What a log line or an error says of a thrown value: an `Error`'s message, anything else as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
