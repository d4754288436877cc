/**
 * Starts tests/browser/harness.py (the real control plane on SQLite, seeded, scripted agents) once for the run and
 * hands its description to the tests through `inject('harness')`. Closing the harness's stdin stops it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import type { Harness } from './harness';
import { CHROMIUM } from './browser';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

let child: ChildProcess | null = null;

function startHarness(): Promise<Harness> {
  const uv = process.env.UV ?? 'uv';
  const proc = spawn(uv, ['run', '--frozen', 'python', '-m', 'tests.browser.harness'], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child = proc;
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error('the harness did not start within 300 s')), 300_000);
    proc.on('error', (error) => reject(new Error(`could not run ${uv}: ${error.message}`)));
    proc.on('exit', (code) => reject(new Error(`the harness exited (${code}) before it was ready`)));
    proc.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(buffered.slice(0, newline)) as Harness);
      } catch (error) {
        reject(new Error(`the harness printed something unexpected: ${buffered.slice(0, newline)} (${error})`));
      }
    });
  });
}

export default async function setup(project: TestProject) {
  // A missing browser is a failure, never a skip: the layer exists to run in CI (VPN_REQUIRE_ALL_TESTS=1).
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install chromium)`);
  }
  if (!existsSync(fileURLToPath(new URL('../dist/index.html', import.meta.url)))) {
    throw new Error('webui/dist is not built: run `make web` (or `npm run build`) first');
  }
  project.provide('harness', await startHarness());
  return async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      const killer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
      proc.on('exit', () => {
        clearTimeout(killer);
        resolve();
      });
      proc.stdin?.end();
    });
  };
}
