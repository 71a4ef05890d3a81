import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export interface Row {
  scenario: string;
  value: number;
  unit: string;
  p50?: number;
  p99?: number;
  ratio?: number;
  target?: string;
  ok?: boolean;
  note?: string;
}

const fmt = (n: number | undefined, digits = 2) => (n === undefined || Number.isNaN(n) ? '' : n >= 100 ? n.toFixed(0) : n.toFixed(digits));
const mark = (row: Row) => (row.ok === undefined ? '' : row.ok ? 'ok' : 'MISS');

function cells(row: Row): string[] {
  return [
    row.scenario,
    `${fmt(row.value)} ${row.unit}`,
    fmt(row.p50),
    fmt(row.p99),
    row.ratio === undefined ? '' : `${row.ratio.toFixed(2)}×`,
    row.target ?? '',
    mark(row),
    row.note ?? '',
  ];
}

const HEAD = ['scenario', 'value', 'p50 ms', 'p99 ms', 'ratio', 'target', '', 'note'];

export function formatTable(rows: Row[]): string {
  const all = [HEAD, ...rows.map(cells)];
  const widths = HEAD.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * Hand-written sections of docs/benchmarks.md (a `## ` heading listed here, up to the next `## `
 * or the end): the generated part above them is rewritten, they are carried over as they are.
 */
export const KEPT_SECTIONS = ['## Running it, and what the rows measure', "## Where a request's time goes"];

/** The kept sections of an existing report, in their order, each ending with one newline. */
export function keptSections(text: string): string[] {
  const kept: string[] = [];
  for (const heading of KEPT_SECTIONS) {
    const start = text.indexOf(`\n${heading}\n`);
    if (start === -1) continue;
    const next = text.indexOf('\n## ', start + heading.length + 2);
    kept.push(`${text.slice(start + 1, next === -1 ? text.length : next + 1).trimEnd()}\n`);
  }
  return kept;
}

export function writeReport(file: URL, report: { date: string; machine: Record<string, unknown>; settings: Record<string, unknown>; rows: Row[] }): void {
  const table = [
    `| ${HEAD.join(' | ')} |`,
    `|${HEAD.map(() => '---').join('|')}|`,
    ...report.rows.map(
      (r) =>
        `| ${cells(r)
          .map((c) => c.replaceAll('|', '\\|'))
          .join(' | ')} |`,
    ),
  ];
  const text = `# Benchmarks

Measured by \`npm run bench\` on ${report.date}. Every ratio compares figures taken in the same run on
the same machine, so a noisy shared machine moves both sides together. The benchmark asserts nothing;
\`MISS\` marks a figure outside its target. Load comes from autocannon in its own process, on
loopback only.

Machine: ${report.machine.cpus} × ${report.machine.cpu}, ${report.machine.memoryGiB} GiB, ${report.machine.os}, Node ${report.machine.node}.
Settings: ${Object.entries(report.settings)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}.

${table.join('\n')}

The frame model: a main-thread command completes in the frame that drains it, so throughput is at most
min(connections, slots, 32) × fps, and while connections ≤ slots ≤ 32 a command waits at most one frame.
A batch (decisions §8) is one entry of up to 32 items, and a frame runs at most 256 items, so batched
items reach min(connections, slots, 32) × 32, at most 256, × fps.
`;
  const kept = existsSync(file) ? keptSections(readFileSync(file, 'utf8')) : [];
  writeFileSync(file, [text, ...kept].join('\n'));
}

/**
 * `--only NAME`: the run measured some scenarios, not all, so the report keeps every other row and
 * replaces (or appends) only these, noting which scenarios were measured when.
 */
export function mergeReport(file: URL, report: { date: string; only: string[]; settings: Record<string, unknown>; rows: Row[] }): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    writeReport(file, { ...report, machine: {} });
    return;
  }
  const lines = text.split('\n');
  const line = (r: Row) =>
    `| ${cells(r)
      .map((c) => c.replaceAll('|', '\\|'))
      .join(' | ')} |`;
  for (const row of report.rows) {
    const at = lines.findIndex((l) => l.startsWith(`| ${row.scenario.replaceAll('|', '\\|')} |`));
    if (at !== -1) {
      lines[at] = line(row);
      continue;
    }
    // A new scenario joins the results table (the file's first), not a hand-written one below it.
    const first = lines.findIndex((l) => l.startsWith('| '));
    let last = first;
    while (last + 1 < lines.length && lines[last + 1]!.startsWith('|')) last++;
    lines.splice(last + 1, 0, line(row));
  }
  const settings = Object.entries(report.settings)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const note = `Partial run \`--only ${report.only.join(',')}\` on ${report.date} (${settings}) replaced its own rows.`;
  const noteAt = lines.findIndex((l) => l.startsWith(`Partial run \`--only ${report.only.join(',')}\``));
  if (noteAt !== -1) lines[noteAt] = note;
  else {
    const settingsAt = lines.findIndex((l) => l.startsWith('Settings:'));
    lines.splice(settingsAt + 1, 0, note);
  }
  writeFileSync(file, lines.join('\n'));
}
