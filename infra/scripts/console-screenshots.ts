/**
 * Screenshots of the web console's pages into docs/console/*.png, for docs/console.md and the README:
 * the whole service on a fresh database of DATABASE_URL's server, the Acme/Beta story written, each
 * page opened in Debian's Chromium (headless, playwright-core; CHROMIUM_PATH names another).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx infra/scripts/console-screenshots.ts
 *   npx tsx infra/scripts/with-embedded-pg.ts -- npx tsx infra/scripts/console-screenshots.ts
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { findChromium, launchChromium } from '../../services/console/src/testing/browser';
import { STORY } from '../../services/memotrace/src/testing/acme-beta-story';
import { THU, WED_NOON } from '../../services/memotrace/src/testing/alice-joins-acme';
import { startTestService } from '../../services/memotrace/src/testing/test-service';

interface Shot {
  file: string;
  path: string;
  /** A selector that is there once the page has its data. */
  ready: string;
  /** A phone's width instead of 1280 px. */
  width?: number;
  before?: (page: Page) => Promise<void>;
}

const OUT = resolve(__dirname, '../../docs/console');
const M = 'acme-story';

async function main(): Promise<void> {
  const chromium = findChromium();
  if (chromium === undefined) throw new Error('no Chromium: apt-get install chromium, or set CHROMIUM_PATH');
  mkdirSync(OUT, { recursive: true });
  const t = await startTestService();
  const browser = await launchChromium(chromium);
  try {
    const written = await t.commands(M, [...STORY]);
    if (written.status !== 200) throw new Error(`the story was refused: ${JSON.stringify(written.body)}`);
    await t.get(`/v1/memories/${M}/facts?validAt=*&minPosition=${written.body.position}`);
    const shots: Shot[] = [
      { file: 'memories.png', path: '/console', ready: 'table' },
      { file: 'memory-as-recorded-wednesday.png', path: `/console/memories/${M}?validAt=${WED_NOON}&recordedAt=${WED_NOON}`, ready: '[data-fact]' },
      {
        file: 'memory-as-world-thursday.png',
        path: `/console/memories/${M}?validAt=${THU}&changesFrom=${WED_NOON}&changesTo=2024-05-10T00:00:00.000Z`,
        ready: '#changes tbody tr',
      },
      {
        file: 'fact.png',
        path: `/console/memories/${M}/facts/alice-acme?validAt=${WED_NOON}&recordedAt=${WED_NOON}`,
        ready: '[data-testid="audit"]',
      },
      { file: 'search.png', path: `/console/memories/${M}/search?q=${encodeURIComponent('Where does Alice work?')}`, ready: '[data-item]' },
      { file: 'entity-graph.png', path: `/console/memories/${M}/entities/alice?validAt=${THU}`, ready: '[data-testid="graph"][data-nodes]' },
      {
        file: 'entity-graph-keyboard.png',
        path: `/console/memories/${M}/entities/alice?validAt=${THU}`,
        ready: '[data-testid="graph"][data-nodes]',
        before: async (page) => {
          // The keyboard's selection: the second node (the fact), ringed, and the live region saying which.
          await page.getByTestId('graph').focus();
          await page.keyboard.press('ArrowRight');
          await page.keyboard.press('ArrowRight');
          await page.getByTestId('graph-selection').filter({ hasText: '2 of' }).waitFor();
        },
      },
      {
        file: 'operations-erasure.png',
        path: `/console/operations?memory=${M}`,
        ready: '[data-testid="rebuild"]',
        before: async (page) => {
          await page.getByLabel('Subject', { exact: true }).selectOption('entityId');
          await page.getByLabel('Its id').fill('alice');
          await page.getByLabel('Reason (kept in the audit)').fill('GDPR request #4411');
          await page.getByRole('button', { name: 'Review the erasure…' }).click();
          await page.getByTestId('erasure-plan').waitFor();
        },
      },
      { file: 'phone-memory.png', path: `/console/memories/${M}?validAt=${THU}`, ready: '[data-fact]', width: 390 },
    ];
    for (const shot of shots) {
      const page = await browser.newPage({ viewport: { width: shot.width ?? 1280, height: shot.width ? 844 : 800 }, deviceScaleFactor: 1 });
      await page.goto(t.url + shot.path);
      await page.locator(shot.ready).first().waitFor();
      // Sections load on their own, and names after their listing: wait until nothing in the page is loading.
      await page.waitForFunction('!document.querySelector(\'main [role="status"], main [aria-busy="true"]\')');
      await shot.before?.(page);
      // The graph's layout runs once its chunk has loaded; a moment for the canvas to paint.
      if (shot.file.startsWith('entity-graph')) await page.waitForTimeout(500);
      await page.screenshot({ path: join(OUT, shot.file), fullPage: true });
      await page.close();
      process.stdout.write(`docs/console/${shot.file}\n`);
    }
  } finally {
    await browser.close();
    await t.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
