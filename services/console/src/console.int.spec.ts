import type { EntityResponse } from '@memotrace/contracts';
import { hashApiKey, parseApiKeys } from '@memotrace/http-kit';
import type { Browser, Page } from 'playwright-core';
import { STORY } from '../../memotrace/src/testing/acme-beta-story';
import { THU, WED_NOON } from '../../memotrace/src/testing/alice-joins-acme';
import { type TestService, startTestService } from '../../memotrace/src/testing/test-service';
import { findChromium, launchChromium } from './testing/browser';

/**
 * The console in a real browser: Debian's Chromium, headless, driven by playwright-core, against the
 * whole service with access control on. Without a Chromium the suite is not selected and its title says
 * why; under CI=true (where .ci/run installs one) a missing Chromium fails the run instead.
 */
const chromiumPath = findChromium();
const ci = process.env['CI'] === 'true';
const why =
  chromiumPath === undefined ? `no Chromium at ${process.env['CHROMIUM_PATH'] || '/usr/bin/chromium'} (apt-get install chromium)` : undefined;
if (why) process.stderr.write(`console browser spec not selected: ${why}\n`);

const M = 'acme-story';
const ADMIN = 'mt_console_admin_token';
const READER = 'mt_console_reader_token';
const WRITER = 'mt_console_writer_token';
const keys = parseApiKeys(
  JSON.stringify([
    { id: 'console-admin', hash: hashApiKey(ADMIN), memories: ['*'], access: 'admin' },
    { id: 'console-reader', hash: hashApiKey(READER), memories: [M], access: 'read' },
    { id: 'console-writer', hash: hashApiKey(WRITER), memories: [M], access: 'write' },
  ]),
);

if (why && ci) {
  describe('web console in Chromium', () => {
    it(`needs a Chromium under CI=true: ${why}`, () => {
      throw new Error(`CI=true and ${why}: .ci/run installs Debian's chromium`);
    });
  });
}

(why ? describe.skip : describe)(`web console in Chromium${why ? ` [not selected: ${why}]` : ''}`, () => {
  let t: TestService;
  let browser: Browser;
  let page: Page;
  let position: number;
  const open = async (path: string) => {
    await page.goto(t.url + path);
  };
  const useKey = async (key: string) => {
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Use key' }).click();
  };

  beforeAll(async () => {
    t = await startTestService({ apiKeys: keys });
    const written = await fetch(`${t.url}/v1/memories/${M}/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
      body: JSON.stringify({ commands: STORY }),
    });
    expect(written.status).toBe(200);
    ({ position } = (await written.json()) as { position: number });
    // Read-your-writes once, so every page below reads the whole story from the read models.
    const read = await fetch(`${t.url}/v1/memories/${M}/facts?validAt=*&minPosition=${position}`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(read.status).toBe(200);
    browser = await launchChromium(chromiumPath!);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('serves the page and its bundle without a key, and index.html for client-side routes', async () => {
    const assets = new Set<string>();
    for (const path of ['/console', `/console/memories/${M}/facts/alice-acme?validAt=*`]) {
      const response = await fetch(t.url + path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(response.headers.get('cache-control')).toBe('no-cache');
      for (const [, asset] of (await response.text()).matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)) assets.add(asset!);
    }
    // The script and the style, named by their content's hash: kept by the browser for good, never asked again.
    const [js, css] = [[...assets].find((a) => /\/main-\w+\.js$/.test(a)), [...assets].find((a) => /\/main-\w+\.css$/.test(a))];
    expect([assets.size, js, css]).toEqual([2, expect.any(String), expect.any(String)]);
    for (const asset of [js!, css!]) {
      const response = await fetch(t.url + asset);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    const script = await fetch(t.url + js!);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    expect((await fetch(`${t.url}/console/assets/main.js`)).status).toBe(404);
    expect((await fetch(`${t.url}/console/assets/nothing.js`)).status).toBe(404);
    // The API stays behind the keys.
    expect((await fetch(`${t.url}/v1/memories`)).status).toBe(401);
  });

  it('says clearly when the key is wrong, and lists the memories with a right one', async () => {
    await open('/console');
    // Without a key the page already shows the API's refusal ("missing API key"); the wrong key's own
    // refusal must replace it.
    await page.getByRole('alert').filter({ hasText: 'missing API key' }).waitFor();
    await useKey('mt_not_a_key');
    const alert = page.getByRole('alert').filter({ hasText: 'invalid API key' });
    await alert.waitFor();
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await alert.textContent()).toMatch(/API key refused.*invalid API key.*Paste a valid key/);
    await page.getByTestId('key-status').filter({ hasText: 'refused' }).waitFor();
    await useKey(ADMIN);
    await page.getByTestId('key-status').filter({ hasText: 'console-admin, admin access to every memory' }).waitFor();
    const row = page.getByRole('row', { name: new RegExp(M) });
    await row.waitFor();
    expect(await row.textContent()).toContain(`${M}${position}`); // the size: the log's length
    expect(await row.textContent()).toContain('2024-05-09 10:00 UTC'); // the latest record time
    expect(await page.evaluate("sessionStorage.getItem('memotrace.apiKey')")).toBe(ADMIN);
  });

  it('shows the story As-Recorded@Wednesday: Acme, as the memory believed then', async () => {
    await open(`/console/memories/${M}?validAt=${WED_NOON}&recordedAt=${WED_NOON}`);
    await page.locator('[data-fact="alice-acme"]').waitFor();
    expect(await page.getByTestId('cut-name').textContent()).toBe('As-Recorded@2024-05-08 12:00 UTC');
    expect(await page.locator('[data-fact]').evaluateAll((els) => els.map((e) => e.getAttribute('data-fact')))).toEqual(['alice-acme']);
    expect(await page.locator('[data-fact="alice-acme"]').textContent()).toMatch(/works_at Acme.*valid \[2024-05-06 00:00 UTC, ∞\)/);
    // Thursday's event is not visible yet; Monday's is, and the episode over it.
    expect(await page.locator('#events').textContent()).toContain('Alice joined Acme');
    expect(await page.locator('#events').textContent()).not.toContain('Alice moved');
    const episode = page.locator('[data-episode="ep-onboarding"]');
    await episode.waitFor();
    expect(await episode.textContent()).toMatch(/ep-onboarding.*Alice onboarding at Acme.*\[2024-05-06 00:00 UTC, ∞\).*ev-join/);
    // The week before the cut's record time: Monday's fact opened.
    await page.locator('#changes tbody tr').first().waitFor();
    expect(await page.locator('#changes tbody').textContent()).toMatch(/opened.*alice-acme/);
  });

  it('re-cuts live with the As-World shortcut, and shows the story As-World@Thursday: Beta', async () => {
    await page.getByRole('button', { name: 'As-World' }).click();
    await page.locator('[data-fact="alice-beta"]').waitFor();
    expect(new URL(page.url()).searchParams.get('recordedAt')).toBeNull();
    expect(await page.getByTestId('cut-name').textContent()).toBe('As-World@2024-05-08 12:00 UTC');
    await open(`/console/memories/${M}?validAt=${THU}`);
    await page.locator('[data-fact="alice-beta"]').waitFor();
    await page.locator('#changes table, #changes p:not([role="status"])').first().waitFor();
    // Read at "now", the page settles: once its answers are drawn it asks nothing more.
    const asked: string[] = [];
    const onRequest = (request: { url(): string }) => void asked.push(request.url());
    page.on('request', onRequest);
    await page.waitForTimeout(1_000);
    page.off('request', onRequest);
    expect(asked.filter((url) => url.includes('/v1/'))).toEqual([]);
    expect(await page.locator('[data-fact]').evaluateAll((els) => els.map((e) => e.getAttribute('data-fact')))).toEqual(['alice-beta']);
    expect(await page.locator('[data-fact="alice-beta"]').textContent()).toMatch(/works_at Beta/);
    expect(await page.locator('#events').textContent()).toContain('Alice moved from Acme to Beta');
    // The changes between Wednesday and Friday: Monday's version closed, two opened.
    await open(`/console/memories/${M}?validAt=${THU}&changesFrom=${WED_NOON}&changesTo=2024-05-10T00:00:00.000Z`);
    const changes = page.locator('#changes tbody tr');
    await changes.first().waitFor();
    expect(await changes.allTextContents()).toEqual([
      expect.stringMatching(/closed.*alice-acme/),
      expect.stringMatching(/opened.*alice-acme/),
      expect.stringMatching(/opened.*alice-beta/),
    ]);
  });

  it('pages the entities of a memory, each page with its facts', async () => {
    // Three entities, one per page here: the memory page reads a page of entities, then their facts.
    await open(`/console/memories/${M}?validAt=${THU}&entitiesAfter=acme`);
    await page.locator('[data-entity="alice"]').waitFor();
    expect(await page.locator('[data-entity]').evaluateAll((els) => els.map((e) => e.getAttribute('data-entity')))).toEqual(['alice', 'beta']);
    expect(await page.locator('[data-fact]').evaluateAll((els) => els.map((e) => e.getAttribute('data-fact')))).toEqual(['alice-beta']);
    await page.getByRole('link', { name: '← first entities' }).click();
    await page.locator('[data-entity="acme"]').waitFor();
    expect(new URL(page.url()).searchParams.get('entitiesAfter')).toBeNull();
  });

  it("draws an entity's first five facts, and the rest when asked", async () => {
    const commands = [
      { op: 'UPSERT_ENTITY', entityId: 'zoe', name: 'Zoe', recordedAt: THU },
      ...Array.from({ length: 7 }, (_, i) => ({
        op: 'UPSERT_EDGE',
        factId: `zoe-${i}`,
        src: 'zoe',
        rel: 'likes',
        dst: { literal: `thing ${i}` },
        validFrom: THU,
        recordedAt: THU,
      })),
    ];
    const written = await fetch(`${t.url}/v1/memories/many-facts/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
      body: JSON.stringify({ commands }),
    });
    expect(written.status).toBe(200);
    await open(`/console/memories/many-facts?validAt=*`);
    const more = page.getByRole('button', { name: 'Show all 7 facts' });
    await more.waitFor();
    const drawn = () => page.locator('[data-fact]').evaluateAll((els) => els.map((e) => e.getAttribute('data-fact')));
    expect(await drawn()).toEqual(['zoe-0', 'zoe-1', 'zoe-2', 'zoe-3', 'zoe-4']);
    expect(await more.getAttribute('aria-expanded')).toBe('false');
    await more.click();
    await page.locator('[data-fact="zoe-6"]').waitFor();
    expect(await drawn()).toHaveLength(7);
    const fewer = page.getByRole('button', { name: 'Show the first 5 facts' });
    expect(await fewer.getAttribute('aria-expanded')).toBe('true');
  });

  it('draws the fact as a bitemporal diagram, one rectangle per version, with its history and audit', async () => {
    await open(`/console/memories/${M}/facts/alice-acme?validAt=${WED_NOON}&recordedAt=${WED_NOON}`);
    const diagram = page.getByTestId('bitemporal-diagram');
    await diagram.waitFor();
    const rects = await diagram.locator('rect[data-version]').evaluateAll((els) =>
      els.map((e) => ({
        version: e.getAttribute('data-version'),
        openRight: e.getAttribute('data-open-right'),
        openTop: e.getAttribute('data-open-top'),
        x: Number(e.getAttribute('x')),
        y: Number(e.getAttribute('y')),
        width: Number(e.getAttribute('width')),
      })),
    );
    // v1: Monday's belief, valid from Monday with an open end, believed until Thursday;
    // v2: Thursday's correction, valid Monday to Wednesday, believed since.
    expect(rects.map(({ version, openRight, openTop }) => ({ version, openRight, openTop }))).toEqual([
      { version: '1', openRight: 'true', openTop: 'false' },
      { version: '2', openRight: 'false', openTop: 'true' },
    ]);
    expect(rects[0]!.x).toBe(rects[1]!.x); // both valid from Monday
    expect(rects[1]!.width).toBeLessThan(rects[0]!.width); // the correction ends on Wednesday
    expect(rects[1]!.y).toBeLessThan(rects[0]!.y); // recorded later: higher up
    // The cut (As-Recorded@Wednesday) falls in v1. With access control on, the actor is the key that wrote.
    expect(await diagram.locator('g.version.in-cut rect').getAttribute('data-version')).toBe('1');
    const history = await page.getByTestId('history').locator('tbody tr').allTextContents();
    expect(history).toHaveLength(2);
    expect(history[1]).toContain('[2024-05-06 00:00 UTC, 2024-05-08 00:00 UTC)');
    const audit = await page.getByTestId('audit').locator('tbody tr').allTextContents();
    expect(audit).toEqual([
      expect.stringMatching(/FactAsserted.*2024-05-06 09:00 UTC/),
      expect.stringMatching(/FactSuperseded.*console-admin.*Alice said she moved/),
    ]);
  });

  it('searches at a cut: ranked items, token count, evidence one click away', async () => {
    await open(`/console/memories/${M}/search?q=${encodeURIComponent('Where does Alice work?')}`);
    const summary = page.getByTestId('search-summary');
    await summary.waitFor();
    expect(await summary.textContent()).toMatch(/\d+ items, \d+ tokens packed/);
    const items = await page.locator('[data-item]').evaluateAll((els) => els.map((e) => e.getAttribute('data-item')));
    expect(items).toContain('fact:alice-beta');
    // Each item says how much it matters to the memory now, and its tier: this memory has no tier policy, so hot.
    expect(await page.locator('[data-item="fact:alice-beta"] [data-salience]').textContent()).toMatch(/^salience [01]\.\d\d$/);
    expect(await page.locator('[data-item="fact:alice-beta"] .badge.tier').textContent()).toBe('hot');
    // At Wednesday's record time, the memory did not know of Beta yet.
    await open(`/console/memories/${M}/search?q=${encodeURIComponent('Where does Alice work?')}&validAt=*&recordedAt=${WED_NOON}`);
    await summary.waitFor();
    const wednesday = await page.locator('[data-item]').evaluateAll((els) => els.map((e) => e.getAttribute('data-item')));
    expect(wednesday).toContain('fact:alice-acme');
    expect(wednesday).not.toContain('fact:alice-beta');
    // The Monday fact's evidence: the mention it was derived from, one click away.
    await page.locator('[data-item="fact:alice-acme"]').getByRole('link', { name: 'mention m-mon' }).click();
    await page.getByText('I started at Acme today').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/memories/${M}/mentions/m-mon`);
  });

  it("checks a pasted text at a cut: each claim's verdict, its facts one click from their diagrams", async () => {
    const text = encodeURIComponent('Alice works at Acme.');
    await open(`/console/memories/${M}/check?text=${text}&validAt=${THU}`);
    const summary = page.getByTestId('check-summary');
    await summary.waitFor();
    expect(await summary.textContent()).toMatch(/^1 claims, cut valid/);
    expect(await page.locator('[data-verdict]').evaluateAll((els) => els.map((e) => e.getAttribute('data-verdict')))).toEqual(['contradicted']);
    // What the memory believed on Wednesday about Wednesday supports it.
    await open(`/console/memories/${M}/check?text=${text}&validAt=${WED_NOON}&recordedAt=${WED_NOON}`);
    await summary.waitFor();
    expect(await page.locator('[data-verdict]').evaluateAll((els) => els.map((e) => e.getAttribute('data-verdict')))).toEqual(['supported']);
    await page
      .locator('[data-verdict="supported"]')
      .getByRole('link', { name: /alice-acme/ })
      .click();
    await page.getByTestId('bitemporal-diagram').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/memories/${M}/facts/alice-acme`);
  });

  it('draws the topics on a timeline, consolidates on request, and merges a suggested pair only when accepted', async () => {
    // One speaker on one subject over six weeks, another on something else, two names of one organisation, and a
    // policy that cools what has sat idle for 30 days: all of it was recorded in March 2024.
    const E = 'console-evolution';
    const day = (n: number) => new Date(Date.UTC(2024, 2, 1 + n, 10)).toISOString();
    const turns = [
      [0, 'Caroline', 'I went to an adoption agency meeting today, the adoption process is long'],
      [1, 'Melanie', 'Nice weather for running'],
      [9, 'Caroline', 'The adoption agency called me back about the adoption interview'],
      [20, 'Caroline', 'My adoption interview at the agency went well'],
      [41, 'Caroline', 'The adoption agency approved my adoption application'],
    ] as const;
    const commands = [
      { op: 'UPSERT_ENTITY', entityId: 'acme-inc', name: 'Acme Inc.', types: ['organization'], recordedAt: day(0) },
      { op: 'UPSERT_ENTITY', entityId: 'acme-corp', name: 'Acme Corporation', types: ['organization'], recordedAt: day(0) },
      { op: 'UPSERT_ENTITY', entityId: 'caroline', name: 'Caroline', types: ['person'], recordedAt: day(0) },
      ...turns.map(([n, speaker, text], i) => ({
        op: 'RECORD_MENTION',
        mentionId: `t${i}`,
        docId: `session-${n}`,
        text,
        speaker,
        occurredAt: day(n),
        recordedAt: day(n),
      })),
      {
        op: 'UPSERT_EDGE',
        factId: 'caroline-adoption',
        src: 'caroline',
        rel: 'applies_for',
        dst: { literal: 'adoption' },
        validFrom: day(41),
        evidence: ['t4'],
        recordedAt: day(41),
      },
      { op: 'SET_TIER_POLICY', coldAfter: 'P30D', salienceFloor: 0.99, recordedAt: day(41) },
    ];
    const admin = { authorization: `Bearer ${ADMIN}` };
    const written = await fetch(`${t.url}/v1/memories/${E}/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...admin },
      body: JSON.stringify({ commands }),
    });
    expect(written.status).toBe(200);

    // From the memory page to its topics, at the same cut: none yet, consolidation derives them.
    await open(`/console/memories/${E}?validAt=*`);
    await page.getByRole('link', { name: 'Topics at this cut' }).click();
    await page.getByText('No topic is visible at this cut').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/memories/${E}/topics`);
    expect(new URL(page.url()).searchParams.get('validAt')).toBe('*');

    await page.getByRole('button', { name: 'Consolidate now' }).click();
    const summary = page.getByTestId('consolidation-summary');
    await summary.waitFor();
    expect(await summary.textContent()).toMatch(/^Cooled [1-9]\d* items?, warmed 0 items; appended [1-9]\d* commands?\.$/);
    expect(await page.getByTestId('appended').locator('tbody tr').allTextContents()).toContainEqual(expect.stringMatching(/UPSERT_TOPIC\s*applied$/));
    // The two names of Acme, suggested as one entity; the run merges nothing by itself.
    const row = page.locator('[data-suggestion]').filter({ hasText: 'acme-inc' }).filter({ hasText: 'acme-corp' });
    const [srcId, dstId] = (await row.getAttribute('data-suggestion'))!.split(' ');
    expect([srcId, dstId].sort()).toEqual(['acme-corp', 'acme-inc']);
    expect(await row.locator('td.num').textContent()).toMatch(/^(0\.\d\d|1\.00)$/);
    const entity = async () => (await (await fetch(`${t.url}/v1/memories/${E}/entities/${srcId}`, { headers: admin })).json()) as EntityResponse;
    expect((await entity()).merges).toEqual([]);
    // The topics the run appended are drawn at once.
    await page.getByTestId('topic-bar').first().waitFor();

    // Accept sends exactly one MERGE_ENTITY, and the row says it was accepted.
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url() === `${t.url}/v1/memories/${E}/commands`);
    await row.getByRole('button', { name: 'Accept' }).click();
    expect((await sent).postDataJSON()).toEqual({ commands: [{ op: 'MERGE_ENTITY', srcId, dstId }] });
    await row.getByText('accepted (applied)').waitFor();
    expect(await row.getByRole('button', { name: 'Accept' }).count()).toBe(0);
    expect((await entity()).merges).toEqual([expect.objectContaining({ entityId: srcId, into: dstId })]);

    // After a reload: the topic on the timeline, inside it, and its members a click away.
    await page.reload();
    const bars = page.getByTestId('topic-bar');
    await bars.first().waitFor();
    expect(await bars.count()).toBeGreaterThanOrEqual(1);
    const topic = page.locator('[data-topic]').filter({ hasText: /adoption/i });
    const [bar, track] = [(await topic.getByTestId('topic-bar').boundingBox())!, (await topic.locator('.track').boundingBox())!];
    expect(bar.width).toBeGreaterThan(0);
    expect([bar.x >= track.x - 1, bar.x + bar.width <= track.x + track.width + 1]).toEqual([true, true]);
    expect(await topic.textContent()).toMatch(/\[2024-03-01 \d\d:\d\d UTC, 2024-04-1\d \d\d:\d\d UTC\), \d+ members/);
    const head = topic.locator('button.topic-head');
    expect(await head.getAttribute('aria-expanded')).toBe('false');
    await head.click();
    await topic.locator('[data-member]').first().waitFor();
    expect(await head.getAttribute('aria-expanded')).toBe('true');
    const members = await topic.locator('[data-member]').evaluateAll((els) => els.map((e) => e.getAttribute('data-member')));
    // Caroline's turns and her fact, in time order; not Melanie's.
    expect(members).toEqual(['mention:t0', 'mention:t2', 'mention:t3', 'fact:caroline-adoption', 'mention:t4']);
    // A fact member opens its diagram; a mention its words.
    const fact = topic.locator('[data-member="fact:caroline-adoption"]').getByRole('link');
    expect(new URL((await fact.getAttribute('href'))!, t.url).pathname).toBe(`/console/memories/${E}/facts/caroline-adoption`);
    await topic.locator('[data-member="mention:t0"]').getByRole('link', { name: 't0' }).click();
    await page.getByText('I went to an adoption agency meeting today').waitFor();

    // The run cooled what sat idle: the fact's versions say so, on its page and on the memory page.
    await open(`/console/memories/${E}/facts/caroline-adoption?validAt=*`);
    await page.getByTestId('history').locator('.badge.tier.cold').waitFor();
    await open(`/console/memories/${E}?validAt=*`);
    await page.locator('[data-fact="caroline-adoption"] .badge.tier.cold').waitFor();

    // Search leaves cold items out, unless the box is ticked: then it asks for both tiers and says which each item is in.
    await open(`/console/memories/${E}/search?q=adoption`);
    await page.getByTestId('search-summary').waitFor();
    expect(await page.locator('[data-item^="mention:"], [data-item^="fact:"]').count()).toBe(0);
    await page.getByLabel('include cold items').check();
    const searched = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/v1/memories/${E}/search`));
    await page.getByRole('button', { name: 'Search' }).click();
    expect((await searched).postDataJSON()).toMatchObject({ query: 'adoption', tiers: ['hot', 'cold'] });
    expect(new URL(page.url()).searchParams.get('cold')).toBe('1');
    const cold = page.locator('[data-item="mention:t0"]');
    await cold.locator('.badge.tier.cold').waitFor();
    expect(await cold.locator('[data-salience]').textContent()).toMatch(/^salience [01]\.\d\d$/);
  });

  it("draws an entity's neighbourhood at the cut with the graph library", async () => {
    await open(`/console/memories/${M}/entities/alice?validAt=${THU}`);
    const graph = page.getByTestId('graph');
    await graph.locator('svg [data-node]').first().waitFor();
    await page.locator('[data-testid="graph"][data-nodes]').waitFor();
    // alice, the fact alice-beta, Beta, the event ev-move, the evidence m-thu, and ev-join: about Alice (its
    // evidence is her Acme fact, not valid on Thursday, so the event hangs on her).
    expect(await graph.getAttribute('data-nodes')).toBe('6');
    const drawn = await graph.locator('[data-node]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')).sort());
    expect(drawn).toEqual(['entity:alice', 'entity:beta', 'event:ev-join', 'event:ev-move', 'fact:alice-beta', 'mention:m-thu']);
    // Every node inside the drawing, none on top of another.
    const boxes = await graph.locator('[data-node]').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()));
    const frame = (await graph.boundingBox())!;
    for (const b of boxes) expect([b.left >= frame.x - 1, b.right <= frame.x + frame.width + 1, b.top >= frame.y - 1]).toEqual([true, true, true]);
    const centres = boxes.map((b) => [b.left + b.width / 2, b.top + b.height / 2]);
    for (let i = 0; i < centres.length; i++)
      for (let j = i + 1; j < centres.length; j++)
        expect(Math.hypot(centres[i]![0]! - centres[j]![0]!, centres[i]![1]! - centres[j]![1]!)).toBeGreaterThan(20);
    expect(await page.locator('#facts').textContent()).toMatch(/Alice works_at Beta/);
    // Fitted to its frame, or at its actual size (a larger neighbourhood scrolls).
    const svgWidth = () => graph.locator('svg').evaluate((e) => e.style.width);
    expect(await svgWidth()).toBe('100%');
    const actual = page.getByRole('button', { name: 'Show the graph at its actual size' });
    await actual.click();
    expect(await page.getByRole('button', { name: 'Fit the graph to its frame' }).getAttribute('aria-pressed')).toBe('true');
    expect(await svgWidth()).toMatch(/^\d+px$/);
  });

  it("moves through the graph's nodes with the keyboard, and says how to skip it", async () => {
    await open(`/console/memories/${M}/entities/alice?validAt=${THU}`);
    await page.locator('[data-testid="graph"][data-nodes]').waitFor();
    // Keyboard only, from the top of the page: Tab reaches the skip link, then the graph itself.
    const focused: string[] = [];
    for (let i = 0; i < 40 && focused[focused.length - 1] !== 'graph'; i++) {
      await page.keyboard.press('Tab');
      focused.push(await page.evaluate<string>("document.activeElement?.dataset?.testid ?? document.activeElement?.textContent ?? ''"));
    }
    expect(focused.slice(-2)).toEqual(['Skip the graph: its facts, events and evidence are listed below', 'graph']);
    expect(await page.getByRole('link', { name: /Skip the graph/ }).getAttribute('href')).toBe('#facts');
    const graph = page.getByTestId('graph');
    expect(await graph.getAttribute('aria-describedby')).toBe('graph-keys');
    const said = page.getByTestId('graph-selection');
    await page.keyboard.press('ArrowRight');
    await said.filter({ hasText: 'Alice (this entity), 1 of 6: Enter opens it' }).waitFor();
    await page.keyboard.press('ArrowRight');
    await said.filter({ hasText: 'works_at (fact), 2 of 6' }).waitFor();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await said.filter({ hasText: ', 6 of 6' }).waitFor();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await page.getByTestId('bitemporal-diagram').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/console/memories/${M}/facts/alice-beta`);
  });

  it('offers erasure to admin keys only, and says why to a read or write key', async () => {
    await open(`/console/operations?memory=${M}`);
    for (const [key, id, access] of [
      [READER, 'console-reader', 'read'],
      [WRITER, 'console-writer', 'write'],
    ] as const) {
      await useKey(key);
      const why = page.getByTestId('erasure-needs-admin');
      await why.filter({ hasText: id }).waitFor();
      expect(await why.textContent()).toMatch(new RegExp(`Erasure needs an admin key.*${id}.*has ${access} access`));
      expect(await page.getByRole('button', { name: 'Review the erasure…' }).count()).toBe(0);
      await page
        .getByTestId('key-status')
        .filter({ hasText: `${id}, ${access} access to ${M}` })
        .waitFor();
    }
    await useKey('mt_not_a_key');
    await page.getByTestId('key-status').filter({ hasText: 'refused' }).waitFor();
    expect(await page.getByRole('button', { name: 'Review the erasure…' }).count()).toBe(0);
    await useKey(ADMIN);
    await page.getByRole('button', { name: 'Review the erasure…' }).waitFor();
  });

  it('names exactly what an erasure takes before it erases; a key that turns read-only loses the control', async () => {
    await open(`/console/operations?memory=${M}`);
    await useKey(ADMIN);
    await page.getByTestId('rebuild').waitFor();
    expect(await page.getByTestId('rebuild').textContent()).toContain('idle');
    const review = async () => {
      await page.getByLabel('Subject', { exact: true }).selectOption('mentionId');
      await page.getByLabel('Its id').fill('m-thu');
      await page.getByLabel('Reason (kept in the audit)').fill('asked to forget the chat');
      await page.getByRole('button', { name: 'Review the erasure…' }).click();
      await page.getByTestId('erasure-plan').waitFor();
    };
    await review();
    expect(await page.getByTestId('erasure-plan').textContent()).toContain(
      'the text and speaker of mention m-thu in document chat-2: "I moved to Beta yesterday" (Alice)',
    );
    const erase = page.getByRole('button', { name: 'Erase m-thu' });
    expect(await erase.isDisabled()).toBe(true);
    await page.getByLabel('Type m-thu to confirm').fill('m-thu');
    // The key changes to a read-only one: the confirmation goes with the control, nothing is erased.
    await useKey(READER);
    await page.getByTestId('erasure-needs-admin').waitFor();
    expect(await erase.count()).toBe(0);
    const mention = async () =>
      (await (await fetch(`${t.url}/v1/memories/${M}/mentions/m-thu`, { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as {
        text: string | null;
      };
    expect((await mention()).text).toBe('I moved to Beta yesterday');
    await useKey(ADMIN);
    await review();
    await page.getByLabel('Type m-thu to confirm').fill('m-thu');
    await erase.click();
    await page.getByText(/^Erased: applied/).waitFor();
    expect((await mention()).text).toBeNull();
  });
});
