import { createHash } from 'node:crypto';

/** One item a topic may gather: a mention (dialog turn), a fact or an event. */
export interface TopicSource {
  kind: 'mention' | 'fact' | 'event';
  id: string;
  /** The item's text: a turn's words, a fact rendered as a sentence ("Caroline attends an adoption meeting"), an event summary. */
  text: string;
  /** Epoch ms: when it was said / when it held / when it happened. */
  at: number;
  /** Who it is about: a mention's speaker name, a fact's subject name, an event's first participant name; null when unknown. */
  person: string | null;
  /** Unit-length embedding of `text`, when the memory has embeddings; absent otherwise (fall back to lexical similarity). */
  vector?: Float32Array | readonly number[];
}

/** What an `UPSERT_TOPIC` carries, plus the person the topic is about. */
export interface TopicDraft {
  topicId: string;
  title: string;
  summary: string;
  /** Half-open: the day of the last member is inside. */
  window: { from: number; to: number };
  members: string[];
  person: string | null;
}

const DAY_MS = 86_400_000;
const DEFAULT_LEXICAL_SIMILARITY = 0.35;
const DEFAULT_VECTOR_SIMILARITY = 0.55;
const DEFAULT_MAX_GAP_MS = 60 * DAY_MS;
const DEFAULT_MIN_MEMBERS = 3;
const DEFAULT_MIN_SPAN_MS = DAY_MS;
const DEFAULT_MAX_SUMMARY_SENTENCES = 3;
const TITLE_KEYWORDS = 3;
const MAX_SENTENCE_CHARS = 300;
/**
 * Open clusters one group keeps at most: a source is compared with every open cluster, so this bounds
 * the work per source however dense the conversation; the least established cluster closes first.
 */
const MAX_OPEN_CLUSTERS = 128;

/**
 * General English function words and conversational filler: they say nothing about what a
 * cluster is about, and chit-chat shares them with everything.
 */
const STOP_WORDS = new Set(
  (
    'a about above after again against ago all almost also although always am an and another any anyone anything anyway are ' +
    'around as at away back be became because become been before being below between both but by can could did do does ' +
    'doing done down during each either else enough even ever every everyone everything for from further get gets getting ' +
    'go goes going gone good got great had has have having he her here hers herself him himself his how however into is ' +
    'it its itself just kind know last later let like likes lot lots made make makes many may maybe me might mine more most ' +
    'much must my myself need never new next nice no nor not nothing now of off oh ok okay on once one only or other ' +
    'others our ours ourselves out over own pretty quite rather really right said same say says see seem seems she should ' +
    'since so some someone something sometimes soon still such sure take than thank thanks that the their theirs them ' +
    'themselves then there these they thing things think this those though through thus time to today together tomorrow ' +
    'too took totally until up upon us very want wants was way we week well went were what whatever when where whether ' +
    'which while who whom whose why will with within without wow would yeah yes yesterday yet you your yours yourself ' +
    'yourselves year day days month months weeks years ' +
    // Conversational filler: greetings, interjections, praise and sympathy.
    'absolutely amazing awesome beautiful best better bye congrats congratulations cool definitely excited exciting ' +
    'fantastic feel feeling feels felt fun glad haha happy hear hello hey hi hmm hope incredible inspiring lol lovely ' +
    'mean means proud sorry sound sounds special super talk tell wonderful yay yep nope ' +
    // Verbs and adverbs every conversation is full of, whatever it is about.
    'along come especially find found give keep lately look put remember share start stay try use wait wish ' +
    // What is left of a contraction once its apostrophe splits it.
    'aren couldn didn doesn don hadn hasn haven isn ll mustn shouldn ve wasn weren won wouldn'
  ).split(' '),
);
/** Stop words as the stemmer leaves them, so that their inflected forms (taking, looks, wishes) are left out too. */
const STOP_STEMS = new Set([...STOP_WORDS].map(stem));

/**
 * Groups the items of a memory into topics: what went on, per person, over a period.
 *
 * Each item is represented by its embedding when it has one, else by its content words: lower-cased,
 * without stop words, conversational filler or the names of the people in the input, crudely stemmed,
 * weighted by TF-IDF over the person's items, and limited to words another of them uses too (a word no
 * other item has relates the item to nothing, it only dilutes its similarities). A person's topics thus
 * depend on that person's items only (and on `people`, the names left out): a run over some people's
 * items derives their topics exactly as a run over everyone's does. Similarity is the
 * cosine with a cluster's centroid (the running mean of its members), in embedding space when both
 * sides have embeddings, else in word space.
 *
 * Per person (unknown is a person of its own), in (at, id) order, an item joins the open cluster it is
 * most similar to, if that similarity reaches the threshold and the cluster's last item is at most
 * `maxGapMs` older; else it opens a cluster. A cluster is closed once its last item is older than that,
 * so the clusters compared stay few. A cluster is a topic when it has `minMembers` items spread over at
 * least `minSpanMs`: continuous in time, durative. Its window runs from the first item to the day after
 * the last; its title is the person and the cluster's three heaviest words; its summary the member texts
 * that cover most of the words the cluster uses (statements before mentions at equal coverage), in time
 * order. Its id depends on the memory, the person and the earliest member only, so a later run that adds
 * members updates the same topic. Items without a finite `at` are left out. Same input, in any order:
 * same output.
 */
export function deriveTopics(
  memoryId: string,
  sources: readonly TopicSource[],
  options: {
    similarity?: number;
    maxGapMs?: number;
    minMembers?: number;
    minSpanMs?: number;
    maxSummarySentences?: number;
    /** The names of the people talking, left out of the words (default: the sources' persons). */
    people?: Iterable<string>;
  } = {},
): TopicDraft[] {
  const lexicalThreshold = options.similarity ?? DEFAULT_LEXICAL_SIMILARITY;
  const vectorThreshold = options.similarity ?? DEFAULT_VECTOR_SIMILARITY;
  const maxGapMs = options.maxGapMs ?? DEFAULT_MAX_GAP_MS;
  const minMembers = Math.max(1, options.minMembers ?? DEFAULT_MIN_MEMBERS);
  const minSpanMs = options.minSpanMs ?? DEFAULT_MIN_SPAN_MS;
  const maxSentences = Math.max(1, Math.floor(options.maxSummarySentences ?? DEFAULT_MAX_SUMMARY_SENTENCES));

  const unique = uniqueSources(sources);
  // The people talking are named all through their talk (greetings, thanks): their names say nothing of a topic.
  const names = options.people ?? unique.flatMap((s) => (s.person === null ? [] : [s.person]));
  const people = new Set([...names].flatMap((name) => tokens(name).map(stem)));
  const bySource = new Map<string | null, TopicSource[]>();
  for (const source of unique) {
    const group = bySource.get(source.person);
    if (group === undefined) bySource.set(source.person, [source]);
    else group.push(source);
  }

  const topics: TopicDraft[] = [];
  for (const [person, sourcesOfPerson] of bySource) {
    const group = prepare(sourcesOfPerson, people);
    for (const cluster of clusterGroup(group, { lexicalThreshold, vectorThreshold, maxGapMs })) {
      const first = cluster.members[0]!;
      const last = cluster.members[cluster.members.length - 1]!;
      if (cluster.members.length < minMembers || last.source.at - first.source.at < minSpanMs) continue;
      topics.push(draft(memoryId, person, cluster, maxSentences));
    }
  }
  return topics.sort((a, b) => a.window.from - b.window.from || compareStrings(a.topicId, b.topicId));
}

// ---------------------------------------------------------------- representation

interface Item {
  source: TopicSource;
  /** Position in the (at, id) order: the tie-breaker that keeps every choice independent of input order. */
  rank: number;
  /** Stem → TF-IDF weight, unit length, of the words the item shares with another; empty when there are none. */
  lexical: Map<string, number>;
  /** The same over all its content words: what the item says, for the summary. */
  words: Map<string, number>;
  /** Stem → the words it stands for in this text, for readable titles. */
  surfaces: Map<string, string[]>;
  /** Unit length, or null when the source has none usable. */
  vector: Float32Array | Float64Array | null;
}

/** One source per id whatever the input order (the first by id, at, kind, text, person), in (at, id) order. */
function uniqueSources(sources: readonly TopicSource[]): TopicSource[] {
  const byId = [...sources]
    .filter((s) => Number.isFinite(s.at))
    .sort(
      (a, b) =>
        compareStrings(a.id, b.id) ||
        a.at - b.at ||
        compareStrings(a.kind, b.kind) ||
        compareStrings(a.text, b.text) ||
        compareStrings(a.person ?? '', b.person ?? ''),
    );
  const unique = byId.filter((s, i) => i === 0 || s.id !== byId[i - 1]!.id);
  return unique.sort((a, b) => a.at - b.at || compareStrings(a.id, b.id));
}

/** One person's sources, in (at, id) order, as items weighed over that person's sources. */
function prepare(unique: readonly TopicSource[], people: ReadonlySet<string>): Item[] {
  const words = unique.map((s) => contentWords(s.text, people));
  const documentFrequency = new Map<string, number>();
  for (const { counts } of words) for (const stem of counts.keys()) documentFrequency.set(stem, (documentFrequency.get(stem) ?? 0) + 1);

  // Embeddings of another dimension than the first one's come from another model: not comparable.
  const dimension = unique.find((s) => s.vector !== undefined && s.vector.length > 0)?.vector?.length ?? 0;
  return unique.map((source, rank) => {
    const { counts, surfaces } = words[rank]!;
    const weights = new Map<string, number>();
    for (const [stem, count] of counts) weights.set(stem, (1 + Math.log(count)) * Math.log(1 + unique.length / documentFrequency.get(stem)!));
    // A word of one item only relates it to nothing: it would only dilute the item's similarities.
    const shared = new Map([...weights].filter(([stem]) => documentFrequency.get(stem)! >= 2));
    return { source, rank, lexical: unitLength(shared), words: unitLength(weights), surfaces, vector: unitVector(source.vector, dimension) };
  });
}

function unitLength(weights: Map<string, number>): Map<string, number> {
  let norm = 0;
  for (const weight of weights.values()) norm += weight * weight;
  norm = Math.sqrt(norm);
  for (const [stem, weight] of weights) weights.set(stem, weight / norm);
  return weights;
}

/** The embedding at unit length; a unit-length Float32Array is used as it is, since embeddings are large. */
function unitVector(vector: TopicSource['vector'], dimension: number): Float32Array | Float64Array | null {
  if (vector === undefined || vector.length !== dimension || dimension === 0) return null;
  let norm2 = 0;
  for (let i = 0; i < vector.length; i++) norm2 += vector[i]! * vector[i]!;
  if (!Number.isFinite(norm2) || norm2 === 0) return null;
  if (vector instanceof Float32Array && Math.abs(norm2 - 1) < 1e-5) return vector;
  const norm = Math.sqrt(norm2);
  return Float64Array.from(vector, (x) => x / norm);
}

/** Stem counts and the words behind each stem. */
function contentWords(text: string, names: ReadonlySet<string>): { counts: Map<string, number>; surfaces: Map<string, string[]> } {
  const counts = new Map<string, number>();
  const surfaces = new Map<string, string[]>();
  for (const word of tokens(text)) {
    if (STOP_WORDS.has(word) || word.length < 3 || /^\p{N}+$/u.test(word)) continue;
    const s = stem(word);
    if (STOP_STEMS.has(s) || names.has(s)) continue;
    counts.set(s, (counts.get(s) ?? 0) + 1);
    const seen = surfaces.get(s);
    if (seen === undefined) surfaces.set(s, [word]);
    else seen.push(word);
  }
  return { counts, surfaces };
}

/** Lower-cased words; a contraction or possessive keeps the part before its apostrophe. */
function tokens(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu) ?? [];
  return words.map((w) => w.split(/['’]/)[0]!);
}

/**
 * Crude suffix stripping, enough to make plural and inflected forms meet: -ies → -y; -es after a
 * sibilant; -s (not -ss, -us, -is); then -ing or -ed, undoubling a final consonant (running → run);
 * then a final -e (race, raced, racing → rac). A rule applies only when at least three letters stay.
 */
function stem(word: string): string {
  let w = word;
  if (w.endsWith('ies') && w.length >= 6) w = w.slice(0, -3) + 'y';
  else if (/(?:ss|x|z|ch|sh)es$/.test(w) && w.length >= 5) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w) && w.length >= 4) w = w.slice(0, -1);
  let stripped = false;
  if (w.endsWith('ing') && w.length >= 6) {
    w = w.slice(0, -3);
    stripped = true;
  } else if (w.endsWith('ed') && w.length >= 5) {
    w = w.slice(0, -2);
    stripped = true;
  }
  if (stripped && w.length >= 4 && /([b-df-hj-km-np-rtv-z])\1$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('e') && w.length >= 4) w = w.slice(0, -1);
  return w;
}

// ---------------------------------------------------------------- clustering

interface Cluster {
  /** Creation order within the group: the tie-breaker between equally similar clusters. */
  seq: number;
  members: Item[];
  /** Sum of the members' lexical vectors and its squared norm: the centroid's direction. */
  lexicalSum: Map<string, number>;
  lexicalNorm2: number;
  /** Sum of the members' embeddings (those that have one) and its squared norm. */
  vectorSum: Float64Array | null;
  vectorNorm2: number;
  /** The dot product of the current item with `lexicalSum`, valid while `stamp` is the item's rank. */
  dot: number;
  stamp: number;
}

/** Stem → the open clusters whose centroid has it, with the centroid's weight for it. */
type Postings = Map<string, Map<Cluster, number>>;

function clusterGroup(group: readonly Item[], settings: { lexicalThreshold: number; vectorThreshold: number; maxGapMs: number }): Cluster[] {
  const done: Cluster[] = [];
  const open = new Set<Cluster>();
  const postings: Postings = new Map();
  let seq = 0;
  // No open cluster's last member is older than this: the open set is scanned for stale clusters only when one may be.
  let oldestLast = Infinity;

  const close = (cluster: Cluster): void => {
    open.delete(cluster);
    for (const stem of cluster.lexicalSum.keys()) postings.get(stem)?.delete(cluster);
    done.push(cluster);
  };

  for (const item of group) {
    const at = item.source.at;
    if (at - oldestLast > settings.maxGapMs) {
      oldestLast = Infinity;
      for (const cluster of open) {
        if (at - lastAt(cluster) > settings.maxGapMs) close(cluster);
        else oldestLast = Math.min(oldestLast, lastAt(cluster));
      }
    }

    // Lexical similarity only needs the clusters sharing a word with the item, found through the postings.
    const sharing: Cluster[] = [];
    for (const [stem, weight] of item.lexical) {
      // forEach rather than for…of: no entry array per cluster, on the hottest path.
      postings.get(stem)?.forEach((sum, cluster) => {
        if (cluster.stamp !== item.rank) {
          cluster.stamp = item.rank;
          cluster.dot = 0;
          sharing.push(cluster);
        }
        cluster.dot += weight * sum;
      });
    }

    // Embeddings and words have different scales: the margin over the threshold compares them.
    let best: Cluster | null = null;
    let bestMargin = -Infinity;
    const consider = (cluster: Cluster, margin: number): void => {
      if (margin >= 0 && (margin > bestMargin || (margin === bestMargin && best !== null && cluster.seq < best.seq))) {
        best = cluster;
        bestMargin = margin;
      }
    };
    const lexicalMargin = (cluster: Cluster): number =>
      cluster.stamp === item.rank && cluster.lexicalNorm2 > 0 ? cluster.dot / Math.sqrt(cluster.lexicalNorm2) - settings.lexicalThreshold : -Infinity;
    if (item.vector !== null) {
      for (const cluster of open) {
        consider(
          cluster,
          cluster.vectorSum !== null && cluster.vectorNorm2 > 0
            ? dotProduct(item.vector, cluster.vectorSum) / Math.sqrt(cluster.vectorNorm2) - settings.vectorThreshold
            : lexicalMargin(cluster),
        );
      }
    } else {
      for (const cluster of sharing) consider(cluster, lexicalMargin(cluster));
    }

    let chosen: Cluster | null = best;
    if (chosen === null) {
      // An item with neither shared words nor an embedding cannot be related to anything.
      if (item.lexical.size === 0 && item.vector === null) continue;
      if (open.size >= MAX_OPEN_CLUSTERS) close(leastEstablished(open));
      chosen = { seq: seq++, members: [], lexicalSum: new Map(), lexicalNorm2: 0, vectorSum: null, vectorNorm2: 0, dot: 0, stamp: -1 };
      open.add(chosen);
      oldestLast = Math.min(oldestLast, at);
    }
    add(chosen, item, postings);
  }
  for (const cluster of [...open]) close(cluster);
  return done;
}

function lastAt(cluster: Cluster): number {
  return cluster.members[cluster.members.length - 1]!.source.at;
}

/** The cluster with the fewest members, then the longest unextended, then the oldest. */
function leastEstablished(open: ReadonlySet<Cluster>): Cluster {
  let least: Cluster | null = null;
  for (const cluster of open) {
    if (
      least === null ||
      cluster.members.length < least.members.length ||
      (cluster.members.length === least.members.length &&
        (lastAt(cluster) < lastAt(least) || (lastAt(cluster) === lastAt(least) && cluster.seq < least.seq)))
    )
      least = cluster;
  }
  return least!;
}

function dotProduct(a: Float32Array | Float64Array, b: Float32Array | Float64Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/** Adds an item and keeps the sums' squared norms by |s + v|² = |s|² + 2 s·v + |v|², in the item's terms only. */
function add(cluster: Cluster, item: Item, postings: Postings): void {
  cluster.members.push(item);
  for (const [stem, weight] of item.lexical) {
    const before = cluster.lexicalSum.get(stem) ?? 0;
    cluster.lexicalNorm2 += 2 * before * weight + weight * weight;
    cluster.lexicalSum.set(stem, before + weight);
    const posting = postings.get(stem);
    if (posting === undefined) postings.set(stem, new Map([[cluster, before + weight]]));
    else posting.set(cluster, before + weight);
  }
  if (item.vector !== null) {
    if (cluster.vectorSum === null) cluster.vectorSum = new Float64Array(item.vector.length);
    cluster.vectorNorm2 += 2 * dotProduct(item.vector, cluster.vectorSum) + dotProduct(item.vector, item.vector);
    for (let i = 0; i < item.vector.length; i++) cluster.vectorSum[i]! += item.vector[i]!;
  }
}

// ---------------------------------------------------------------- the topic

function draft(memoryId: string, person: string | null, cluster: Cluster, maxSentences: number): TopicDraft {
  const members = cluster.members;
  const first = members[0]!;
  const last = members[members.length - 1]!;
  const keywords = topKeywords(cluster);
  const subject = keywords.length > 0 ? keywords.join(', ') : shorten(normalizeSpace(first.source.text), 80);
  const title = person === null ? subject : subject === '' ? person : `${person}: ${subject}`;
  return {
    topicId: 'topic-' + sha256Hex(`${memoryId}\u0000${person ?? ''}\u0000${first.source.id}`).slice(0, 24),
    title: title === '' ? 'topic' : title,
    summary: summarize(cluster, maxSentences),
    window: { from: first.source.at, to: last.source.at + DAY_MS },
    members: members.map((m) => m.source.id),
    person,
  };
}

/** The stems with the most summed weight, each shown as the word the members use most for it. */
function topKeywords(cluster: Cluster): string[] {
  const ranked = [...cluster.lexicalSum].sort(([sa, wa], [sb, wb]) => wb - wa || compareStrings(sa, sb)).slice(0, TITLE_KEYWORDS);
  return ranked.map(([stem]) => {
    const uses = new Map<string, number>();
    for (const member of cluster.members) for (const word of member.surfaces.get(stem) ?? []) uses.set(word, (uses.get(word) ?? 0) + 1);
    const [word] = [...uses].sort(([wa, ca], [wb, cb]) => cb - ca || wa.length - wb.length || compareStrings(wa, wb))[0]!;
    return word;
  });
}

/**
 * Greedy maximum coverage: repeatedly the member whose words add the most cluster weight (the members'
 * TF-IDF weights summed) not yet covered; at equal gain a statement (fact, event) before a mention,
 * then the earlier. The sentences read in time order.
 */
function summarize(cluster: Cluster, maxSentences: number): string {
  const weight = new Map<string, number>();
  for (const member of cluster.members) for (const [stem, w] of member.words) weight.set(stem, (weight.get(stem) ?? 0) + w);
  const covered = new Set<string>();
  const chosen: Item[] = [];
  const remaining = new Set(cluster.members);
  while (chosen.length < maxSentences) {
    let best: Item | null = null;
    let bestGain = 0;
    for (const member of remaining) {
      let gain = 0;
      for (const stem of member.words.keys()) if (!covered.has(stem)) gain += weight.get(stem)!;
      if (gain <= 0) continue;
      if (best === null || gain > bestGain || (gain === bestGain && preferred(member, best))) {
        best = member;
        bestGain = gain;
      }
    }
    if (best === null) break;
    chosen.push(best);
    remaining.delete(best);
    for (const stem of best.words.keys()) covered.add(stem);
  }
  // Members without content words (an embedding-only cluster) still say something: the earliest statement, else the earliest item.
  if (chosen.length === 0) chosen.push(cluster.members.find((m) => m.source.kind !== 'mention') ?? cluster.members[0]!);
  return chosen
    .sort((a, b) => a.rank - b.rank)
    .map((m) => sentence(m.source.text))
    .filter((s) => s !== '')
    .join(' ');
}

function preferred(a: Item, b: Item): boolean {
  const aStatement = a.source.kind !== 'mention';
  const bStatement = b.source.kind !== 'mention';
  return aStatement !== bStatement ? aStatement : a.rank < b.rank;
}

/** One line, at most the sentence length, ending as a sentence so that joined sentences read as prose. */
function sentence(text: string): string {
  const line = normalizeSpace(text);
  if (line === '') return '';
  const short = shorten(line, MAX_SENTENCE_CHARS);
  return short !== line || /[.!?…"'”’)]$/u.test(short) ? short : `${short}.`;
}

function normalizeSpace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** At most `max` code points (never half a surrogate pair), cut at a word boundary when one is near, marked with an ellipsis. */
function shorten(text: string, max: number): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  let cut = points.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  if (space >= cut.length * 0.6) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Code-unit order: the same on every machine, unlike a locale's collation. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
