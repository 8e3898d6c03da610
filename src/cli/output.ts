import stringWidth from 'string-width';

/**
 * How the CLI talks to its user. With `--json` a command prints its result as JSON on stdout with
 * the REST API's field names (snake_case), and an error as `{"message": ...}` on stderr (exit code
 * non-zero); nothing else is written. Without it, results are short human text on stdout, errors
 * one `firmledger: …` line on stderr, and notes (which database was opened, progress) go to stderr.
 */
let jsonMode = false;

/**
 * Whether the arguments ask for JSON: `--json` before any `--`. Read before commander parses, so
 * that even an error of the command line itself is JSON.
 */
export function jsonRequested(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/** Sets the output mode for this run (see {@link jsonRequested}). */
export function setJsonMode(on: boolean): void {
  jsonMode = on;
}

/** Whether this run prints JSON. */
export function isJsonMode(): boolean {
  return jsonMode;
}

/**
 * Prints a command's result on stdout: with `--json` as JSON (`toJson(result)`, the REST API's
 * shape of it, when given), else in a short human form.
 */
export function print<T>(result: T, json: boolean, human: (value: T) => string, toJson?: (value: T) => unknown): void {
  endProgress();
  process.stdout.write(json ? `${JSON.stringify(toJson ? toJson(result) : result, null, 2)}\n` : `${human(result)}\n`);
}

/** Prints an error on stderr: `{"message": ...}` in JSON mode, else `firmledger: message`. */
export function printError(message: string): void {
  endProgress();
  process.stderr.write(jsonMode ? `${JSON.stringify({ message })}\n` : `firmledger: ${message}\n`);
}

/** A line for the person at the terminal on stderr (never in JSON mode, never on stdout). */
export function note(line: string): void {
  endProgress();
  if (!jsonMode) process.stderr.write(`firmledger: ${line}\n`);
}

/** Display width of the progress line on stderr now, or null when none is open. */
let progressWidth: number | null = null;

/**
 * Shows `line` as the progress line on stderr, in place of the previous one (`\r`); nothing in
 * JSON mode. Callers report at most a few times a second. {@link endProgress} ends the line.
 */
export function showProgress(line: string): void {
  if (jsonMode) return;
  const width = stringWidth(line);
  process.stderr.write(`\r${line}${' '.repeat(Math.max(0, (progressWidth ?? 0) - width))}`);
  progressWidth = width;
}

/** Ends the open progress line, if any, so what follows starts on a line of its own. */
export function endProgress(): void {
  if (progressWidth === null) return;
  process.stderr.write('\n');
  progressWidth = null;
}

/**
 * Rows as an aligned text table, the header naming the columns. Widths are display columns
 * (`string-width`): CJK characters and emoji take two, so the columns line up in a terminal.
 */
export function table<T extends object>(rows: readonly T[], columns: (keyof T & string)[]): string {
  if (rows.length === 0) return '(none)';
  const cells: string[][] = [columns, ...rows.map((row) => columns.map((c) => cellText(row[c])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => stringWidth(r[i]))));
  return cells
    .map((r) =>
      r
        .map((cell, i) => cell + ' '.repeat(widths[i] - stringWidth(cell)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A value as one table cell: no line breaks or tabs, which would break the alignment. */
function cellText(value: unknown): string {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'string'
        ? value
        : typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint'
          ? String(value)
          : (JSON.stringify(value) ?? '');
  return text.replace(/[\t\r\n]+/g, ' ');
}

/**
 * The keys of an object in snake_case (`upToDate` → `up_to_date`), one level deep: for the CLI's
 * own results that have no REST shape (operator tokens and accounts, the simulator's summary).
 */
export function snakeCaseKeys(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
}
