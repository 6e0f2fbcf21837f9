/**
 * Reads Prometheus's text exposition for the metrics suites: one sample by name and labels, and
 * the HELP and TYPE lines of a family.
 */

/** One sample line: its metric name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of a scrape. */
export function samples(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    if (line.startsWith('#') || line.trim() === '') return [];
    const match = SAMPLE_LINE.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = value!;
    return [{ name: match[1]!, labels, value: Number(match[3]) }];
  });
}

/** The value of the sample with this name and exactly these labels; 0 when there is none. */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  const found = samples(text).find(
    (sample) => sample.name === name && JSON.stringify(Object.entries(sample.labels).sort()) === wanted,
  );
  return found?.value ?? 0;
}

/** The family's `# HELP` text and `# TYPE`, or undefined when it is not in the scrape. */
export function familyOf(text: string, name: string): { help: string; type: string } | undefined {
  const help = new RegExp(`^# HELP ${name} (.+)$`, 'm').exec(text)?.[1];
  const type = new RegExp(`^# TYPE ${name} (\\w+)$`, 'm').exec(text)?.[1];
  return help === undefined || type === undefined ? undefined : { help, type };
}
