/**
 * Runs a TypeScript script once per job, each in its own Node process, the job passed as JSON in
 * argv[2] and the outcome read as JSON from its stdout: for the suites that need real separate
 * processes (cross-process quota and charge races).
 */
import { spawn } from 'node:child_process';

/** Resolves with each process's parsed stdout, in job order; rejects if one exits non-zero. */
export function runJsonProcesses<T>(script: string, jobs: readonly unknown[], label: string): Promise<T[]> {
  return Promise.all(
    jobs.map(
      (job) =>
        new Promise<T>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(job)], {
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (chunk: Buffer) => {
            stdout += chunk.toString();
          });
          child.stderr.on('data', (chunk: Buffer) => {
            stderr += chunk.toString();
          });
          child.on('error', reject);
          child.on('close', (code) => {
            if (code === 0) resolve(JSON.parse(stdout) as T);
            else reject(new Error(`${label} exited with ${code}: ${stderr.trim()}`));
          });
        }),
    ),
  );
}
