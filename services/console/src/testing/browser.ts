import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`), or the one CHROMIUM_PATH names (only that one). No browser is ever downloaded. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = env['CHROMIUM_PATH'] ? [env['CHROMIUM_PATH']] : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((path) => existsSync(path));
}

/** Headless Chromium driven by playwright-core through its executable path. */
export async function launchChromium(executablePath: string): Promise<Browser> {
  // No sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
