// Importance (1..10) by rules: the floor where no model is loaded (DESIGN.md "Models"). Each signal adds or
// subtracts from a neutral 5; strong signals of different kinds add up, the same kind counts once.
import { IMPORTANCE_MAX, IMPORTANCE_MIN } from "../../../contract/limits.js";

const NEUTRAL = 5;

interface Signal {
  name: string;
  re: RegExp;
  weight: number;
}

export const IMPORTANCE_SIGNALS: readonly Signal[] = [
  // Things that cost a lot when forgotten.
  {
    name: "security",
    re: /\b(?:password|credential|secret|api key|token|2fa|mfa|vulnerab\w*|cve-\d|breach|leak\w*|encrypt\w*|access control|permissions?|soc ?2|gdpr|hipaa|pci|compliance|audit|rotate|revoke\w*|phishing|security|sso|private key|ssh key)\b/i,
    weight: 2,
  },
  {
    name: "incident",
    re: /\b(?:outage|incident|sev ?[12]|p0|p1|down(?:time)?|data loss|rollback|rolled back|postmortem|post-mortem|on-?call|pager\w*|critical bug|hotfix)\b/i,
    weight: 2,
  },
  {
    name: "decision",
    re: /\b(?:decided|decision|we agreed|agreed (?:to|on|that)|chose|chosen|settled on|going forward|from now on|will standardi[sz]e|approved|signed off|policy)\b/i,
    weight: 2,
  },
  {
    name: "deadline",
    re: /\b(?:deadline|due|by (?:mon|tue|wed|thu|fri|sat|sun|end of|eod|tomorrow|the \d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|q[1-4])\w*|must (?:ship|be done|land|launch)|launch(?:es|ing)? on|release date|cutoff|cut-off|expires?)\b/i,
    weight: 2,
  },
  {
    name: "commitment",
    re: /\b(?:promised|committed to|commitment|sla|contract\w*|renewal|invoice|customer|client|enterprise|account manager|churn|escalat\w*|legal|signed)\b/i,
    weight: 2,
  },
  {
    name: "emphasis",
    re: /\b(?:always|never|must|important|critical|crucial|essential|make sure|don'?t ever|do not ever|under no circumstances|required|mandatory|non-negotiable|remember to|top priority|highest priority|blocker)\b/i,
    weight: 2,
  },
  {
    name: "health",
    re: /\b(?:allerg\w*|diabet\w*|medication|epipen|asthma|pregnan\w*|surgery|diagnos\w*|emergency contact|blood type|disabilit\w*)\b/i,
    weight: 3,
  },
  {
    name: "identity",
    re: /\b(?:my name is|i am a|i'm a|i work (?:as|at|for)|works as|my role|job title|my (?:wife|husband|partner|son|daughter|manager|boss)|pronouns|lives in|i live in|based in|time ?zone|native language|birthday)\b/i,
    weight: 2,
  },
  {
    name: "preference",
    re: /\b(?:prefers?|preferred|preference|likes?|dislikes?|hates?|loves?|favou?rite|would rather|rather than|instead of|wants? (?:to|all|every)|please use|use .* not)\b/i,
    weight: 1,
  },
  {
    name: "money",
    re: /\b(?:budget|revenue|salary|pricing|price|\$\s?\d|€\s?\d|£\s?\d|\d+k\b|arr|mrr|funding|payroll|cost\w*|spend)\b/i,
    weight: 1,
  },
  {
    name: "production",
    re: /\b(?:production|prod\b|database|migration|schema|backup|disaster recovery|dns|certificate|tls)\b/i,
    weight: 1,
  },
  {
    name: "people",
    re: /\b(?:hired|hiring|offer letter|resign\w*|fired|promotion|performance review|new hire|onboard\w*|headcount)\b/i,
    weight: 1,
  },
  // Things that cost little when forgotten.
  {
    name: "chit-chat",
    re: /\b(?:lol|haha|lmao|btw|fun fact|random(?:ly)?|weather|nice day|just saying|by the way|had (?:a |some )?(?:coffee|lunch|pizza|sandwich|snack)|watched|funny|meme|joke)\b/i,
    weight: -3,
  },
  {
    name: "passing state",
    re: /\b(?:feeling (?:tired|sleepy|hungry|bored)|tired|sleepy|hungry|bored|right now|at the moment|this morning|this afternoon|tonight|grabbing|taking a break|brb|stuck in traffic)\b/i,
    weight: -2,
  },
  { name: "hedge", re: /\b(?:maybe|might|perhaps|not sure|i think|probably|possibly|kind of|sort of)\b/i, weight: -1 },
];

function clamp(n: number): number {
  return Math.min(IMPORTANCE_MAX, Math.max(IMPORTANCE_MIN, Math.round(n)));
}

/** Rates how costly forgetting this memory would be, 1..10, from phrase signals. */
export function rateImportanceByRules(text: string): number {
  let score = NEUTRAL;
  for (const signal of IMPORTANCE_SIGNALS) if (signal.re.test(text)) score += signal.weight;
  // Very short memories carry little; a long, specific one carries more.
  const words = text.trim().split(/\s+/).length;
  if (words <= 3) score -= 1;
  return clamp(score);
}

export { clamp as clampImportance };
