// Words that follow "password is" / "token:" in sentences ABOUT secrets, not in sentences that state one.

const FUNCTION_WORDS = `
a an the this that these those it its my your our his her their one some any no not none all each every
what which who whom whose where when why how whatever whichever something anything nothing everything
is are was were be been being has have had do does did will would shall should can could may might must
to of in on at by for from with without via into onto over under about above below after before since until
and or but nor so yet if then than also too very quite really just only still even ever never always often
usually sometimes rarely probably likely definitely maybe perhaps already again now here there
i you he she we they me him us them mine yours ours theirs
same different other another such own
le la les un une des du de et ou est pas que qui dans sur pour avec sans ce cette mon ma mes ton ta tes son sa ses
el los las una unos unas del y o es no que en con sin por para este esta mi mis tu tus su sus muy
der die das ein eine einen dem den des und oder ist nicht kein keine mit ohne für auf im in zu mein meine dein sein ihr
`;

const COMMENTARY_WORDS = `
weak strong long short wrong incorrect invalid valid correct right bad good fine ok okay great terrible
required mandatory optional necessary needed missing empty blank unknown known new old current previous
secret private public shared personal sensitive confidential important critical secure insecure safe unsafe
simple complex complicated easy hard difficult random unique reused common obvious guessable predictable
temporary permanent default standard generic initial
case sensitive insensitive
stored saved kept hashed salted encrypted encoded protected managed rotated reset changed updated set
expired expiring stale outdated compromised leaked exposed visible hidden masked shown displayed
sent emailed texted printed written listed
in on at with inside within under behind
too enough sufficient insufficient
characters chars digits letters symbols words
minimum maximum min max least most
unchanged unset unavailable unused
overdue due needed
same identical similar
managed handled
per every each
policy policies rules rule requirements requirement field fields manager managers prompt hint reset
falsch richtig erforderlich sicher unsicher geheim neu alt abgelaufen gespeichert
incorrecta correcta obligatoria segura insegura nueva vieja caducada guardada
incorrect obligatoire sûr faible fort nouveau ancien expiré
zero one two three four five six seven eight nine ten eleven twelve sixteen twenty thirty
`;

const FUNCTION = new Set(FUNCTION_WORDS.split(/\s+/).filter(Boolean));
const COMMENTARY = new Set(COMMENTARY_WORDS.split(/\s+/).filter(Boolean));

// Adjective/participle/adverb endings: "rotated", "expiring", "quickly", "unguessable", "sensitive", "dangerous".
const COMMENTARY_SUFFIX = /(?:ed|ing|ly|able|ible|ive|ous|ful|less|ent|ant|ary|ory|ic|ical|ness|ment|tion|sion)$/;

/** True when `value` reads as a word ABOUT a secret (article, adjective, participle), not as the secret. */
export function isCommentary(value: string): boolean {
  const v = value.toLowerCase();
  if (FUNCTION.has(v) || COMMENTARY.has(v)) return true;
  const words = v.split(/\s+/);
  if (words.length > 1) return words.every((w) => FUNCTION.has(w) || COMMENTARY.has(w));
  return /^\p{L}+$/u.test(v) && v.length > 4 && COMMENTARY_SUFFIX.test(v);
}
