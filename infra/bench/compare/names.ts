/**
 * Words the generated memory is made of: people, places and organisations with
 * realistic names, and short literal texts, so a search for a name or a phrase has
 * something to rank (facts render as "Olivia Brandt works at Harbor Logistics").
 */
const words = (list: string) => list.trim().split(/\s+/);
const phrases = (list: string) => list.split('|').map((p) => p.trim());

export const FIRST_NAMES = words(`
  Olivia Liam Emma Noah Ava Oliver Sophia Elijah Isabella Lucas Mia Mateo Amelia Levi Harper Ethan Evelyn James Aria Henry
  Chloe Theo Layla Samuel Nora Daniel Zoe Felix Maya Hugo Ingrid Tomas Leila Rafael Priya Kenji Amara Jonas Sofia Arjun
  Hana Mateus Freya Omar Elena Viktor Yara Anton Lucia Tariq Mei Stefan Alma Diego Ines Kofi Greta Ravi Clara Emil`);

export const SURNAMES = words(`
  Martin Brandt Okafor Silva Novak Chen Larsen Haddad Moreau Tanaka Fischer Costa Nakamura Kowalski Ibrahim Jensen Rossi Dubois Schmidt Kim
  Petrov Garcia Lindqvist Mensah Horvat Alvarez Weber Sato Nguyen Byrne Castillo Eriksen Kaur Bauer Romano Yilmaz Adeyemi Varga Lopes Wagner`);

const PLACE_PREFIXES = words('North South East West Port Lake Old New Upper Lower Saint Fort');
const PLACE_ROOTS = words(`
  Harbor Alden Maren Brook Carrow Dunmore Elmstead Fairhaven Glenrock Hollis
  Ivybridge Kestrel Larkspur Millbrook Northgate Oakridge Pinecrest Quarry Redcliff Stonebridge`);

const ORG_ROOTS = phrases(
  'Harbor | Granite | Blue Fern | Copperleaf | Northwind | Silverline | Brightwater | Redwood | Ironbark | Starling | ' +
    'Juniper | Lighthouse | Meridian | Orchard | Summit | Tidewater | Willow | Aurora | Beacon | Cobalt',
);
const ORG_KINDS = words('Logistics Labs Health Bakery Robotics Studio Bank Press Energy Analytics');

/** A `one` literal relation's values: what someone is up to, superseded over time. */
export const STATUSES = phrases(
  'training for the autumn marathon | on parental leave | learning to play the cello | renovating an old farmhouse | ' +
    'studying for a pilot licence | travelling through Patagonia | recovering from knee surgery | ' +
    'writing a cookbook about fermentation | volunteering at the animal shelter | working remotely from the coast | ' +
    'preparing a chess tournament | teaching evening pottery classes | on sabbatical in Kyoto | building a wooden sailboat | ' +
    'coaching the junior football team | restoring vintage motorcycles',
);

/** A `many` literal relation's values, combined: "prefers green tea", "collects vintage maps". */
export const NOTE_VERBS = phrases('prefers | collects | dislikes | is allergic to | often talks about | recommends | grows | photographs');
export const NOTE_OBJECTS = phrases(
  'green tea | vintage maps | jazz records | peanuts | mountain bikes | orchids | espresso | old cameras | ' +
    'sourdough bread | board games | sea kayaks | wildflowers | science fiction | street food | birdwatching | tomatoes',
);

export interface NamedEntity {
  id: string;
  name: string;
  type: 'person' | 'place' | 'organisation';
}

/**
 * `count` distinct entities: a tenth places, a tenth organisations, the rest people.
 * Names come from fixed lists in a fixed order, so they are the same in every run;
 * past the lists' combinations a number keeps them distinct.
 */
export function namedEntities(count: number): NamedEntity[] {
  const places = Math.max(1, Math.round(count / 10));
  const organisations = Math.max(1, Math.round(count / 10));
  const people = Math.max(1, count - places - organisations);
  return [
    ...combine(people, FIRST_NAMES, SURNAMES).map((name, i) => ({ id: `person-${i}`, name, type: 'person' as const })),
    ...combine(places, PLACE_PREFIXES, PLACE_ROOTS).map((name, i) => ({ id: `place-${i}`, name, type: 'place' as const })),
    ...combine(organisations, ORG_ROOTS, ORG_KINDS).map((name, i) => ({ id: `org-${i}`, name, type: 'organisation' as const })),
  ];
}

/** `count` distinct "a b" names over the two lists, "a b 2", "a b 3", ... once they run out. */
function combine(count: number, first: readonly string[], second: readonly string[]): string[] {
  const combos = first.length * second.length;
  return Array.from({ length: count }, (_, i) => {
    const name = `${first[i % first.length]} ${second[Math.floor(i / first.length) % second.length]}`;
    return i < combos ? name : `${name} ${Math.floor(i / combos) + 1}`;
  });
}
