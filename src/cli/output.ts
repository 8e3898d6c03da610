/** Prints a command's result: JSON with `--json`, else a short human form. */
export function print(result: unknown, json: boolean, human: (value: never) => string): void {
  process.stdout.write(json ? `${JSON.stringify(result, null, 2)}\n` : `${human(result as never)}\n`);
}

/** Rows as an aligned text table. */
export function table<T extends object>(rows: readonly T[], columns: (keyof T & string)[]): string {
  if (rows.length === 0) return '(none)';
  const cells: string[][] = [columns, ...rows.map((row) => columns.map((c) => String(row[c] ?? '')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
