// mailcheck ships no types; only what the benchmark calls is declared.
declare module 'mailcheck' {
  interface RunOptions {
    email: string;
    domains?: string[];
    suggested?: (suggestion: { address: string; domain: string; full: string }) => void;
    empty?: () => void;
  }
  const mailcheck: { run(options: RunOptions): void };
  export default mailcheck;
}
