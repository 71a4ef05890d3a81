// Deterministic names. An actor's name is a pure function of (world seed, actor uid, race at
// birth), so the world stores no strings per actor and a save needs none.
import { ACTORS } from './assets.ts';
import { hash3 } from './rng.ts';

interface Syllables {
  first: readonly string[];
  middle: readonly string[];
  last: readonly string[];
}

const STYLES: Record<string, Syllables> = {
  human: {
    first: ['Al', 'Ber', 'Cor', 'Da', 'Ed', 'Fre', 'Gar', 'Hal', 'Is', 'Jo', 'Ka', 'Le', 'Mar', 'Ned', 'Os', 'Ro', 'Sa', 'Tho', 'Wil', 'El'],
    middle: ['', '', 'a', 'e', 'i', 'o', 'ri', 'la', 'ne'],
    last: ['bert', 'ric', 'win', 'mund', 'ard', 'ton', 'na', 'ly', 'son', 'da', 'rin', 'ma', 'vin', 'lan'],
  },
  elf: {
    first: ['Ae', 'Cel', 'Ela', 'Fae', 'Gal', 'Ith', 'Lae', 'Mel', 'Nim', 'Syl', 'Tha', 'Ar', 'Eol', 'Lir'],
    middle: ['a', 'e', 'i', 'ae', 'ia', 'ri', 'lo', 'the'],
    last: ['dil', 'wen', 'las', 'ion', 'riel', 'thas', 'nor', 'lin', 'mir', 'ndra', 'wyn'],
  },
  orc: {
    first: ['Gr', 'Ug', 'Mok', 'Zug', 'Thr', 'Kar', 'Gol', 'Dur', 'Bol', 'Sna', 'Ur', 'Ruk'],
    middle: ['', 'a', 'u', 'o', 'ag', 'ub'],
    last: ['gash', 'nak', 'dush', 'mog', 'rok', 'gul', 'zag', 'bag', 'thak', 'ruk'],
  },
  dwarf: {
    first: ['Bal', 'Dur', 'Gim', 'Thor', 'Bof', 'Dwa', 'Kil', 'Nor', 'Bor', 'Fun', 'Grim', 'Hel'],
    middle: ['', 'a', 'i', 'o', 'li', 'ra'],
    last: ['in', 'din', 'li', 'rin', 'grim', 'bek', 'mund', 'dra', 'gar', 'ek'],
  },
  beast: {
    first: ['Fluf', 'Pat', 'Bram', 'Dot', 'Pep', 'Sno', 'Bis', 'Wig', 'Mof', 'Tuf', 'Ash', 'Bun'],
    middle: ['', '', 'y', 'o', 'er'],
    last: ['fy', 'ch', 'ble', 'sy', 'per', 'kin', 'bo', 'ey', 'le', 'go'],
  },
  monster: {
    first: ['Vor', 'Mal', 'Xar', 'Gor', 'Sker', 'Naz', 'Drak', 'Mor', 'Zal', 'Kre'],
    middle: ['', 'a', 'o', 'u', 'ga', 'tha'],
    last: ['goth', 'rax', 'zul', 'mor', 'thul', 'gorn', 'vex', 'xis', 'kul'],
  },
};

function styleOf(assetIndex: number): Syllables {
  const asset = ACTORS[assetIndex];
  if (!asset) return STYLES.beast!;
  if (asset.kind === 'civ') return STYLES[asset.race] ?? STYLES.human!;
  return asset.kind === 'monster' ? STYLES.monster! : STYLES.beast!;
}

function pick(list: readonly string[], h: number): string {
  return list[h % list.length]!;
}

/** The name of the actor with this uid, in the style of the race it was born as. */
export function actorName(seed: number, uid: number, bornAsset: number): string {
  const style = styleOf(bornAsset);
  const h1 = hash3(seed, uid, 1);
  const h2 = hash3(seed, uid, 2);
  const h3 = hash3(seed, uid, 3);
  return pick(style.first, h1) + pick(style.middle, h2) + pick(style.last, h3);
}

const KINGDOM_SUFFIX: Record<string, readonly string[]> = {
  human: ['ia', 'land', 'mark', 'shire', 'ford'],
  elf: ['lond', 'dor', 'wen', 'thil', 'iel'],
  orc: ['gar', 'dush', 'mok', 'rak', 'thar'],
  dwarf: ['heim', 'grund', 'dal', 'berg', 'hold'],
};

const CITY_SUFFIX: Record<string, readonly string[]> = {
  human: ['ton', 'bury', 'ham', 'wick', 'field', 'port', 'bridge'],
  elf: ['ost', 'ethil', 'lorien', 'vale', 'anor'],
  orc: ['grom', 'skar', 'gash', 'ruk', 'mash'],
  dwarf: ['forge', 'deep', 'stone', 'hammer', 'gate'],
};

/** A kingdom's name from the world seed and its id. */
export function kingdomName(seed: number, id: number, race: string): string {
  const style = STYLES[race] ?? STYLES.human!;
  const suffixes = KINGDOM_SUFFIX[race] ?? KINGDOM_SUFFIX.human!;
  return pick(style.first, hash3(seed, id, 11)) + pick(style.middle, hash3(seed, id, 12)) + pick(suffixes, hash3(seed, id, 13));
}

/** A city's name from the world seed and its id. */
export function cityName(seed: number, id: number, race: string): string {
  const style = STYLES[race] ?? STYLES.human!;
  const suffixes = CITY_SUFFIX[race] ?? CITY_SUFFIX.human!;
  return pick(style.first, hash3(seed, id, 21)) + pick(style.last, hash3(seed, id, 22)) + pick(suffixes, hash3(seed, id, 23));
}
