// Categories (DESIGN.md "categories"): one domain, then one to three topics, from weighted phrase lexicons.
import { MAX_TOPICS, TOPICS, type Domain, type Topic } from "../../../contract/taxonomy.js";

type Lexicon = ReadonlyArray<readonly [RegExp, number]>;

/** Phrases that signal each topic, with a weight; a topic needs TOPIC_THRESHOLD to be chosen. */
export const TOPIC_LEXICON: Record<Topic, Lexicon> = {
  preference: [
    [
      /\b(?:prefers?|preferred|preference|favou?rite|would rather|likes? (?:to|it|when|their|his|her|the|a)|likes?\b|dislikes?|hates?|loves?|can'?t stand|enjoys?|wants? (?:to|all|every|responses|answers)|rather than|instead of|please (?:use|write|keep|avoid|don'?t)|don'?t (?:like|want)|style|tone|dark mode|light mode|tabs|spaces)\b/i,
      2,
    ],
    [/\b(?:always|never)\b/i, 1],
  ],
  profile: [
    [
      /\b(?:my name is|name is|i am a|i'm a|works as|work as|job title|title is|role is|my role|is a (?:senior|junior|staff|principal|lead)|goes by|joined (?:the company|us|in)|is an? (?:\w+ )?(?:engineer|designer|developer|illustrator|teacher|nurse|doctors?|analyst|founder|lawyer|accountant|writer|student|cto|ceo)|years of experience|pronouns|native language|speaks|grew up|vegetarian|vegan|time ?zone|birthday (?:is|falls)|born)\b/i,
      2,
    ],
    [/\b(?:(?:i|he|she|they) (?:live|lives) in|based in|(?:is|am) the (?:cto|ceo|tech lead|manager|lead|owner|founder))\b/i, 2],
    // Who a person is, said tersely ("I'm 34, left-handed", "Background: physics PhD", "ex-navy", "night shifts").
    [
      /\b(?:i'?m \d{2}\b|\d{2} years old|aged \d{2}|left-handed|right-handed|colou?rblind|night owl|early riser|background(?=:)|phd|ex-(?!wife|husband|partner)[a-z]+|stay-at-home|part-time|full-time|freelanc\w*|self-employed|retired|night shifts?|late shift|(?:i|she|he) runs? the \w+ team|native (?:\w+ )?speaker|fluent in)\b/i,
      2,
    ],
  ],
  relationship: [
    [
      /\b(?:wife|husband|partner|girlfriend|boyfriend|son|daughter|kids?|children|mother|father|mom|dad|mum|parents?|brother|sister|sibling|friends?|mates|family(?!'s| (?:plans?|home|house|place|history|recipes?|car|account|doctors?|gp|room|name|business|tree|size|friendly|calendar|password|photos?))|married|together|cousins?|niece|nephew|uncle|aunt|grand(?:mother|father|ma|pa|parents?|son|daughter|kids?|children)|step(?:mother|father|mom|dad|son|daughter|brother|sister)|(?:mother|father|brother|sister|son|daughter)-in-law|in-laws|roommates?|flatmates?|housemates?|neighbou?rs?|godson|goddaughter|fianc[eé]e?|spouse|twins?|ex-(?:wife|husband|partner)|reports to|manager is|(?:user's|my|his|her|their) (?:line )?manager|counterpart|co-leads?|mentors?|mentee|go-to person|best friend|dog|cat|god(?:mother|father|parents?|daughter|son|child)|(?:my|his|her|their|a|an old) mate|co-owns?|co-founders?|business partner|(?:don'?t|doesn'?t|never) get (?:along|on)|fell out|clash(?:es)? (?:with|over))\b/i,
      2,
    ],
    [/\b(?:colleague|coworker|teammate|boss)\b/i, 1],
  ],
  project: [
    [
      /\b(?:projects?|initiatives?|roadmaps?|milestones?|epics?|workstream|migration|rewrites?|redesigns?|launchs?|mvp|v\d+(?:\.\d+)*|phase \d|beta|poc|proof of concept|codename|relaunchs?|rollouts?|renovat\w*|restoring|revamp|side project|big bet|pilot|(?:halfway|two-thirds|\d+ ?%) (?:through|done)|on hold|^building an?|(?:i'm|we're|i am|we are) (?:building|writing) an?)\b/i,
      2,
    ],
    [/\b(?:repo(?:sitory)?|feature(?! branch| flags?| toggles?| freeze)|scope|team is building|working on)\b/i, 1],
  ],
  task: [
    [
      /\b(?:todo|to-do|to do(?! with)|tasks?|action item|action(?=:)|follow up|follow-up|remind me|remember to|don'?t forget|need to|needs to|have to|has to|must (?:renew|book|call|send|fix|pay|sign(?! in| on| up)|finish|update|submit|check)|should (?:really )?(?:add|fix|book|call|send|update|check|write|look)|assigned|pick up|chase|send (?:the|a)|email (?:the|him|her)|backlog)\b/i,
      2,
    ],
    // An imperative opening the memory is a to-do ("Buy…", "Water the…"); so is a chore, whatever the verb.
    [
      /^(?:please |todo:? |action:? )?(?:buy|book(?! club| group| fair)|call|email|send|pick up|renew|order|fix|update|upgrade|revoke|check|water|feed|take|finish|review|prepare|submit|remind|clean|pay|cancel|return|schedule|ask|tell|follow up|print|file|sign|reply|chase|add|get|collect|bring|write up|swap|draft|share|move|set up|install|ring|text|post|drop off|look into|bump|merges?|migrate|rename|remove|delete|archive|invite|restart|rerun)\b/i,
      3,
    ],
    [
      /\b(?:needs? (?:water|watering|feeding|walking|a walk|cleaning|his|her|its|their)|water(?:ing)? the|(?:recycling|trash|bins|garbage) out|groceries|laundry|chores?(?!\/)|dry cleaning)\b/i,
      3,
    ],
  ],
  deadline: [
    [
      /\b(?:deadlines?|due|by (?:mon|tue|wed|thu|fri|sat|sun|end of|eod|eow|tomorrow|tonight|today|next|the \d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|q[1-4])\w*|cutoff|cut-off|no later than|runs? out (?:at|on|in|by|at the end)|by the end of|closes on|ends on|must be in by|expires?|ship(?:s|ping)? (?:on|by)|release date|launch date|freeze|(?:shuts|closes|close|lapses|expires) (?:on |at )?(?:mon|tue|wed|thu|fri|sat|sun|midnight|noon|\d))\b/i,
      3,
    ],
  ],
  decision: [
    [
      /\b(?:decided|decisions?|agreed|we will|we'll|chose|chosen|choose|settled on|going forward|from now on|approved|rejected|signed off|picked|opted|standardi[sz]e[ds]?|policy|ruled out|no longer|made the call|final answer|(?:we|i)(?:'re| are| am)? go(?:ing)? with|went with|said (?:yes|no) to|decided\w*|(?:is|are) dropped|(?:we're|we are) dropping|not backfilling|weighed it up|settled(?=:)|is out\b|adr\b|voted)\b/i,
      3,
    ],
  ],
  meeting: [
    [
      /\b(?:meetings?|meet with|meet (?:on|at|to discuss)|meets|standups?|stand-ups?|sync(?! (?:worker|job|service|process|engine|script|client|server|api|task|queue|code|logic|bugs?|issue|error|fails?|failed|jobs|workers))|1:1|one-on-one|one on one|retro(?:spective)?|all-hands|all hands|call with|calendar|agendas?|demo day|kickoffs?|kick-off|offsites?|planning session|sprint planning|interview (?:with|at)|zoom|google meet|huddles?|quarterly planning|planning (?:day|days|week)|review with|parents'? evening|case conference|debrief|catch-up with|catch up with)\b/i,
      3,
    ],
  ],
  process: [
    [
      /\b(?:process|workflows?|procedures?|runbooks?|playbooks?|checklists?|conventions?|guidelines?|code reviews?|pull requests?|approvals?|sign-off|postmortem|release process|deploy(?:s|ment)? (?:process|on|every|only)|ci\b|cd\b|pipeline|on-?call rotation|rotation|scrum|kanban|every (?:pr|release|merges?|commits?)|go(?:es)? through|before merging|must be reviewed|branch(?:ing)? (?:strategy|model)|trunk|gitflow|ship (?:weekly|daily)|weekly release)\b/i,
      2,
    ],
    [
      /\b(?:go(?:es)? through|must be reviewed|postmortems?|sign-off|approvals?|notice|signs? off|(?:approved|vetted|checked|reviewed|handled|triaged) by|release train|need two signatures|flow(?=:)|how we do)\b/i,
      1,
    ],
  ],
  infrastructure: [
    [
      /\b(?:server|servers|clusters?|kubernetes|k8s|docker|containers?|aws|gcp|azure|ec2|s3|lambda|terraform|ansible|nginx|load balancer|dns|cdn|cloudflare|databases?|postgres(?:ql)?|mysql|redis|kafka|rabbitmq|elasticsearch|mongodb|sqlite|staging|production|prod\b|deploy\w*|hosting|hosted|vpc|subnet|regions?|us-east|eu-west|node pool|vm|instances?|disk|backups?|monitoring|grafana|prometheus|datadog|uptime|latency|cpu|memory usage|outages?|downtime|connection pools?|(?:went|was|were|is) down|ci runner|github actions|infra\w*|wi-?fi|broadband|routers?|nas|raspberry pi|buckets?)\b/i,
      2,
    ],
  ],
  code: [
    [
      /\b(?:coding|functions?|class|methods?|variables?|typescript|javascript|python|rust|golang|go\b|java\b|kotlin|swift|ruby|php|c\+\+|react|vue|angular|node(?:\.js)?|npm|pnpm|yarn|endpoints?|refactor\w*|lint\w*|eslint|prettier|unit tests?|vitest|jest|pytest|bugs?|stack trace|exception|typeerror|referenceerror|syntaxerror|valueerror|keyerror|traceback|nullpointerexception|\w+\.(?:ts|js|tsx|py|go|rs|java|rb|kt):\d+|compile\w*|git|pull request|snake_case|camelcase|pr #\d+|indent\w*|type hints|async|orm|sql|schemas?|regexs?|dependencys?|dependencies|sdks?|graphql)\b/i,
      2,
    ],
    // Words as often said of a process, a tool preference or a server as of code itself.
    [
      /\b(?:(?<!(?:dress|zip|postal|post|promo|discounts?|coupon|qr|area|countrys?|door|access|referral|voucher) )code(?![ -]?names?)|librarys?|frameworks?|api|(?<!(?:eye|blood|hearing|covid|driving|pregnancy|allergys?|sight|urine|dna|lab|smog|mot) )tests?|build|commits?|branchs?|merges?|tabs|spaces|modules?|packages?|cli|json|yaml|rest|scripts?|stored procedures?|notebooks?|dbt)\b/i,
      1.5,
    ],
    [/\b(?:built with|written in|flutter|django|rails|fastapi|spring boot|laravel|next\.js|svelte|tokio|lodash|kotlin)\b/i, 2],
  ],
  security: [
    [
      /\b(?:security|secure|passwords?|credentials?|secrets?|api keys?|two-factor|2-factor|multi-factor|authenticat\w*|tokens?|2fa|mfa|sso|oauth|saml|vulnerab\w*|cve|breachs?|(?:data|credential|secret|key|token|password) leaks?|leaked|leaks? (?:of )?(?:data|credentials?|keys?|secrets?|passwords?|tokens?|pii)|encrypt\w*|tls|ssl|(?:tls|ssl|https|x\.?509|root|server|signing|code-signing|wildcard|expired|expiring) certificates?|certs?\b|firewalls?|access control|permissions?|rbac|least privilege|soc ?2|gdpr|hipaa|pci|compliance|(?<!(?:accessibility|a11y|contrast|content|seo|ux|design|brand|energy|tax|financial|stock|inventory|expenses?|screen-reader) )audit|pentest|pen test|penetration test|xss|csrf|sql injection|phishing|rotat\w* (?:the |all |our |its |their |every |old |api |ssh |deploy )*(?:keys?|credentials?|secrets?|passwords?|tokens?|certificates?|certs?)|revoke\w*|private key|ssh keys?|vault|iam|dependabot|snyk|advisory|high severity|critical severity|hardware keys?|security keys?|yubikeys?|ssh access|failed (?:ssh )?logins?|ip blocked|usb (?:sticks?|drives?)|client certificates?|parental controls?|sms codes?|stolen|password managers?|bitwarden|1password|lastpass|keepass|scams?|smishing|fake (?:\w+ )?(?:texts?|emails?|calls?|invoices?)|shared logins?)\b/i,
      3,
    ],
  ],
  customer: [
    [
      /\b(?:customers?|(?<!(?:http|https|api|rest|graphql|grpc|sql|db|databases?|redis|kafka|mail|e-?mail|ftp|ssh|vpn|web|desktop|mobile|thin|native|python|java|go|node|js|typescript|ruby|rust|s3|aws|oauth|sdks?|test|mock|torrent|irc|chat) )clients?(?! certificates?| libraries| library| side| code)|user feedback|support ticket|churn\w*|renewals?|enterprise|tenants?|sla|onboarding call|their team|acme|globex|initech|umbrella corp|contoso|escalat\w*|nps|csat|qbr|csm|(?:biggest|largest|key|smallest) accounts?|signed a \S+ deal|\d+ (?:paid )?seats|threatening to (?:leave|churn|walk)|or they walk|prospects?|evaluating us|trial(?:l)?ing (?:our|the)|(?:support )?ticket (?:#|[a-z]+-)\d+)\b/i,
      2,
    ],
  ],
  product: [
    [
      /\b(?:product|features?(?! branch| flags?| toggles?| freeze)|roadmaps?|pricing page|plan|tiers?|free tier|pro plan|release notes|launchs?|users? want|ux|ui|onboarding flow|dashboard|mobile app|the app|app store|beta|waitlist|free trial|trial|tiers?|product-market|pm\b|specs?|requirements|user story|a\/b test|experiments?)\b/i,
      2,
    ],
    [
      /\b(?:requested feature|feature requests?|most used feature|private beta|public beta|(?:we're|we are) launching|can now|now comes? with|next release|new version)\b/i,
      2,
    ],
  ],
  finance: [
    [
      /\b(?:budgets?|revenue|salarys?|salaries|invoices?|reimburse\w*|tax(?:es)?|funding|runway|burn rate|arr|mrr|profit|margin|bank|loans?|mortgages?|savings|401k|stocks?|equity|payroll|\$\s?\d[\d,.]*k?|€\s?\d|£\s?\d|usd|eur|dollars|euros|(?:aws|cloud|phone|electricity|gas|water|hosting) bill|bill (?:doubled|went up|is))\b/i,
      3,
    ],
    // Words that are often about money but as often name a system, a team or a product page ("the billing service").
    [
      /\b(?:pay|paid|payments?|billing|price|pricing|cost\w*|spend\w*|expenses?|raise[ds]?(?! (?:(?:her|his|their|my|your|our|a|an|the|this|that) )?(?:hands?|concerns?|issues?|questions?|points?|bugs?|tickets?|flags?|alarms?|awareness|objections?))|burn|rent|options|quotes?|discounts?)\b/i,
      2,
    ],
  ],
  hiring: [
    [
      /\b(?:hiring|hire|hired|candidates?|recruit\w*|(?<!visa |consulate |embassy |podcast |press |radio |tv )interview\w*|job (?:posting|opening|offer)|offer letter|(?:accepted|made) (?:our|an|the) offer|offer for|offer (?:sent|to|accepted|declined)|headcount|requisition|onboard(?:ing)? (?:the new|new)|new hire|resume|cv\b|vacanc(?:y|ies)|applicants?|(?:looking for|need|needs|want|wants|hiring|recruit|took on|taken on|taking on) (?:a|an|two|three|four|\d+|more|another)(?: more)?(?: [\w-]+){0,3} (?:engineers?|developers?|designers?|managers?|analysts?|bookkeepers?|accountants?|nannies|nanny|cleaners?|assistants?|interns?|porters?|chefs?|nurses?|teachers?|tutors?|writers?|marketers?|scientists?|administrators?|admins?|reps?|hires?)|starts? as (?:a|an|our)|join(?:s|ing) (?:us|the team) as|applications? for|job ads?|job adverts?|shortlist\w*|(?:first|second|final)-round|childminder|take-home|referral|sourcing|talent)\b/i,
      3,
    ],
  ],
  health: [
    [
      /\b(?:health|allerg\w*|doctors?|dentists?|physio\w*|therapy|therapist|medication|medicine|diabet\w*|asthma|migraines?|sick|illness|flu|covid|surgerys?|hospital|injur\w*|pregnan\w*|diet|gluten|lactose|vegan|vegetarian|exercise|workout|gym|running|sleep|mental health|blood|back pain|knee|wrist|broke (?:my|his|her|their) \w+|sleeps? (?:badly|poorly)|insomnia|checkup|check-up|vaccin\w*|prescriptions?|eyesight|optician|eye test|heart (?:disease|condition|attack)|dementia|antidepressants?|seasick\w*|blood type|yoga|achilles|physio|tablets|jabs?|bad back|hard of hearing|arthritis|(?:hip|knee|eye) op\b)\b/i,
      3,
    ],
  ],
  travel: [
    [
      /\b(?:travel\w*|trips?|flights?|flying|fly(?:ing)? to|fl(?:ies|ew) to|airports?|hotels?|airbnb|vacation(?! requests?| days| allowance| balance| policy)|holiday(?! season| party| rush| sales?| shopping| requests?| allowance| entitlement| balance| policy)|pto(?! requests?| balance| policy)|out of office|ooo|visas?|passports?|itinerarys?|conference in|offsite in|train to|layovers?|boarding|jet lag|abroad|booked (?:a|the) (?:flights?|hotels?|room)|long weekend|ski (?:week|trips?)|backpacking|driving to|going to \w+ for)\b/i,
      3,
    ],
  ],
  location: [
    [
      /\b(?:lives? in|living in|based in|located in|moved to|moving to|office (?:is )?in|hq|headquarters|addresss?|citys?|countrys?|remote from|remotely|works? from (?:home|a|the)|summer house|spread (?:across|between)|home base|(?:is|are) in (?:a village|a town|the suburbs)|(?:a|the) village|hot desks?|(?:\d+(?:st|nd|rd|th)|first|second|third|fourth|fifth|top|ground) floor|(?:end of|on) \w+ (?:lane|street|road|avenue)|data cent(?:re|er) (?:for|is in)|industrial park|(?:streets?|miles?|minutes?) (?:from|away)|round the corner|lock-up|warehouse|time ?zone|utc[+-]\d|cet|pst|est|berlin|london|paris|new york|san francisco|tokyo|amsterdam|lisbon|madrid|toronto|sydney|singapore|bangalore|munich|seattle|austin|boston|chicago|dublin|zurich|stockholm|warsaw|barcelona)\b/i,
      2,
    ],
  ],
  event: [
    [
      /\b(?:event(?! (?:loop|bus|queue|stream|sourcing|handlers?|listeners?|emitters?|types?|schemas?|driven|log))|conferences?|summits?|meetups?|weddings?|party|birthday|anniversary|concerts?|festivals?|webinars?|workshops?|hackathons?|launch event|ceremonys?|graduation|game|match|recitals?|marathon|reunions?|tournaments?|exhibitions?|dinner with|celebrations?|talk at|speaking at|attending|keynotes?|talk accepted|lightning talks?|picnic|volunteering day|booth|stand at|trade fair|expo|school play|gig|christening|\d+(?:st|nd|rd|th) birthday|(?:'s|my|her|his) \d0th|barbecue|bbq|street party|half marathon|charity (?:bike ride|run|walk|ride)|panel (?:on|at)|moderating|open day|f[eê]te|funeral|memorial service|[bt]at mitzvah|bar mitzvah|(?:retirement|leaving|farewell|christmas|birthday) (?:do|drinks|party|lunch|dinner))\b/i,
      3,
    ],
  ],
  learning: [
    [
      /\b(?:learn\w*|studying|study|course|courses|tutorials?|book on|reading|read (?:the|a)|certifications?|certified|exams?|classes|lessons?|bootcamps?|degrees?|university|mooc|coursera|udemy|duolingo|wants to get better at|get better at|improve (?:my|his|her|their) |night class|class in|working through|ch\. \d+|chapter \d+|understand how|brush(?:ing)? up on|tutor|mentoring program\w*|thesis|skills? to pick up|certificate (?:course|in|online)|modules? left|evening class|to [abc][12]\b|practice(?=:))\b/i,
      3,
    ],
  ],
  contact: [
    [
      /\b(?:e-?mail (?:is|addresss?)|phone(?: number)?|number is|reachable (?:at|on|via)|reach(?:ed)? (?:him|her|them|me|it)? ?(?:at|on|via)|contact (?:is|person|info)|point of contact|slack handle|handle is|@[a-z0-9_]+\b|linkedin|whatsapp|signal|telegram|cell|mobile number|ping (?:him|her|them) on)\b/i,
      3,
    ],
    [/\b[\w.+-]+@[\w-]+\.[\w.]+\b|\+\d[\d\s-]{6,}\d|\b\d{3}-\d{4}\b|\b0\d{9}\b/i, 3],
  ],
};

export const TOPIC_THRESHOLD = 2;

/** Which domain a topic leans toward; a domain's score is its own phrases plus its topics'. */
const TOPIC_DOMAIN: Record<Topic, Partial<Record<Domain, number>>> = {
  preference: { personal: 0.5 },
  profile: { personal: 1 },
  relationship: { personal: 1.5 },
  project: { work: 1.5 },
  task: { work: 1 },
  deadline: { work: 1 },
  decision: { work: 1 },
  meeting: { work: 1.5 },
  process: { work: 1.5 },
  infrastructure: { technical: 2 },
  code: { technical: 2 },
  security: { technical: 1.5 },
  customer: { business: 2 },
  product: { business: 1.5 },
  finance: { business: 1.5 },
  hiring: { work: 1.5 },
  health: { personal: 2 },
  travel: { personal: 1 },
  location: { personal: 1 },
  event: { personal: 1 },
  learning: { personal: 1 },
  contact: { work: 0.5 },
};

export const DOMAIN_LEXICON: Record<Domain, Lexicon> = {
  work: [
    [
      /\b(?:team|teammates?|colleague|coworker|manager|boss|office|standup|sprint|company|org|department|jira|okr|performance review|1:1|at work)\b/i,
      1,
    ],
  ],
  personal: [
    [
      /\b(?:my (?:wife|husband|partner|kids?|son|daughter|mom|dad|family|dog|cat|home|house|apartment|doctor|birthday)|weekend|vacation|family|hobby|hobbies|home|personal|friends?|girlfriend|boyfriend|wedding|gym|cook\w*|garden\w*|landlord|car insurance|the car|vet|plants|tomatoes|electricity bill|gym membership|library books|dry cleaning|groceries)\b/i,
      1.5,
    ],
    // The user's own household, family and money: personal, whoever else is named.
    [
      /\b(?:mum|mom|dad|parents|sister|brother|kids?|kid'?s|school (?:office|play|run|holidays?)|nanny|babysitter|plumber|electrician|flat\b|mortgage|rent\b|household|car loan|parking fine|premium|christmas|husband|wife|tax return|bank account|optician|therapy|isa\b|pension|bills included|quid|lease|garage|kitchen|bins|the bank|thesis|novel|renovation|parent-teacher|(?:my|our) (?:car|bike|flat|garage|kitchen|lease|landlord|neighbou?rs?|parents|sister|brother|mum|mom|dad|kids|nanny)|i owe|owes)\b/i,
      1.5,
    ],
  ],
  technical: [
    [
      /\b(?:api|server|database|code|codebase|deploy\w*|stack|library|framework|cli|editor|ide|vim|vscode|neovim|terminal|shell|bash|linux|macos|dark mode|keyboard|monitor setup|ssh|ip range|pr #?\d+|repo|cron|pods?|queue depth|workers|polyfill|openapi|ci\b|sql|typescript|python|rust|golang|kubernetes|docker|logins?)\b/i,
      1,
    ],
  ],
  business: [
    [
      /\b(?:customers?|clients?|revenue|sales|deal|contract|pricing|market\w*|competitor\w*|partners?hip|investor\w*|board|arr|mrr|quota|pipeline review|go-to-market|gtm|vendor)\b/i,
      1.5,
    ],
  ],
};

/** Where nothing matches: the most common kind of memory an agent stores about its user. */
export const FALLBACK_CATEGORIES: readonly [Domain, Topic] = ["personal", "preference"];
/** A domain chosen without any topic evidence still needs one topic that fits it. */
const DOMAIN_DEFAULT_TOPIC: Record<Domain, Topic> = {
  work: "task",
  personal: "preference",
  technical: "code",
  business: "product",
};

export interface CategoryScores {
  topics: Map<Topic, number>;
  domains: Map<Domain, number>;
}

/** Each lexicon expression's global twin, compiled once (a lexicon is scored several times per memory). */
const globalOf = new Map<RegExp, RegExp>();
function lexiconScore(lexicon: Lexicon, text: string): number {
  let score = 0;
  for (const [re, weight] of lexicon) {
    let global = globalOf.get(re);
    if (!global) globalOf.set(re, (global = new RegExp(re.source, "gi")));
    const hits = text.match(global)?.length ?? 0;
    // Repeats count less than the first hit.
    if (hits > 0) score += weight * (1 + Math.log2(hits) * 0.5);
  }
  return score;
}

/** Scores every topic and domain for `text` from the lexicons. */
export function scoreCategories(text: string): CategoryScores {
  const topics = new Map<Topic, number>();
  for (const [topic, lexicon] of Object.entries(TOPIC_LEXICON) as Array<[Topic, Lexicon]>) {
    const s = lexiconScore(lexicon, text);
    if (s > 0) topics.set(topic, s);
  }
  const domains = new Map<Domain, number>();
  for (const [domain, lexicon] of Object.entries(DOMAIN_LEXICON) as Array<[Domain, Lexicon]>) {
    const s = lexiconScore(lexicon, text);
    if (s > 0) domains.set(domain, s);
  }
  const overridden = new Set<Topic>();
  for (const rule of DECIDING_RULES) {
    if (!rule.when.test(text)) continue;
    if (rule.leans) domains.set(rule.leans, (domains.get(rule.leans) ?? 0) + 2);
    for (const t of rule.overrides ?? []) overridden.add(t);
  }
  for (const t of titledTopics(text)) overridden.add(t);
  for (const [topic, s] of topics) {
    if (s < TOPIC_THRESHOLD || overridden.has(topic)) continue;
    for (const [domain, w] of Object.entries(TOPIC_DOMAIN[topic]) as Array<[Domain, number]>) {
      domains.set(domain, (domains.get(domain) ?? 0) + (w * Math.min(s, 4)) / 2);
    }
  }
  return { topics, domains };
}

/** Orders by score, then by the taxonomy's order, so ties break the same way every time. */
function ranked<T extends string>(scores: Map<T, number>, order: readonly string[]): Array<[T, number]> {
  return [...scores.entries()].sort((a, b) => b[1] - a[1] || order.indexOf(a[0]) - order.indexOf(b[0]));
}

/**
 * How topics are picked from their scores: a topic is a candidate when its score reaches its own threshold; candidates
 * are ranked by score over threshold, and one is kept only while it reaches `ratio` of the best one's, up to
 * MAX_TOPICS (`shortCap` for a text of SHORT_TEXT_WORDS words or fewer: a short fact rarely has three subjects).
 */
export interface TopicCalibration {
  thresholds: Record<Topic, number>;
  /** Topics a word must decide: the classifier alone never gives them (chosen where that helps the development rows). */
  needsWord?: Topic[];
  /** With no topic at its threshold, give the one nearest its threshold (at least this share of it) before a default. */
  bestBelow?: number;
  ratio: number;
  shortCap: number;
  /**
   * The cap for longer texts (older weight files: MAX_TOPICS). People give a long memory hardly more topics than a short
   * one (1.11-1.29 per memory at every length over the five labelled groups; 3 topics on 2 rows of 1,104).
   */
  longCap?: number;
}
export const SHORT_TEXT_WORDS = 10;

/** The rules alone (no sentence vector): one threshold for every topic, chosen on the training set. */
export const RULES_CALIBRATION: TopicCalibration = {
  thresholds: Object.fromEntries(TOPICS.map((t) => [t, TOPIC_THRESHOLD])) as Record<Topic, number>,
  ratio: 0.75,
  shortCap: 2,
};

/**
 * Phrases that decide (issue 30): the topic a rule gives is always a candidate, and the topics it rules out are
 * dropped unless their own phrases appear too ("working from the Lisbon office" is where the user works, not a trip).
 */
export interface DecidingRule {
  name: string;
  when: RegExp;
  gives: Topic;
  rulesOut: Topic[];
  /** Topics dropped even when their own phrases appear ("the billing service has a bug": billing is not money here). */
  overrides?: Topic[];
  /** The domain the phrase leans to, beside its topic's (a chore is the user's own life). */
  leans?: Domain;
}

const PET =
  "(?:dog|cat|puppy|kitten|parrot|budgie|rabbit|hamster|guinea pig|tortoise|pony|horse|goldfish|retriever|labrador|beagle|terrier|poodle|spaniel|collie|greyhound|dachshund|husky|bulldog|corgi|pug|whippet|schnauzer|sheepdog|shepherd|tabby)s?";
export const DECIDING_RULES: readonly DecidingRule[] = [
  {
    name: "an office is a workplace",
    when: /\b(?:work(?:s|ing)?|i'm|i am|is|are|sits?) (?:from|in|at|out of) (?:the|our) (?:[A-Z][\w-]* ){1,2}office\b/,
    gives: "location",
    rulesOut: ["travel", "relationship"],
  },
  {
    name: "a chore is a task",
    when: /\b(?:needs? (?:water|watering|feeding|walking|a walk|cleaning)|water(?:ing)? the|feed the|walk the dog|(?:recycling|trash|bins|garbage) out|laundry|chores?(?!\/))\b/i,
    gives: "task",
    rulesOut: ["process", "infrastructure", "preference"],
    leans: "personal",
  },
  {
    name: "a data store is infrastructure",
    when: /\b(?:stores?|keeps?) (?:its|their|the|our) (?:data|\w+ index|queue|sessions?) in\b/i,
    gives: "infrastructure",
    rulesOut: ["security"],
  },
  {
    name: "a pet is a relationship",
    when: new RegExp(
      `\\b(?:(?:user's|my|his|her|their|our) (?:\\w+ )?${PET}|(?:has|have|adopted|got) (?:an?|two|three) (?:\\w+ )?${PET}|${PET} (?:called|named))\\b`,
      "i",
    ),
    gives: "relationship",
    rulesOut: [],
    overrides: ["preference"],
    leans: "personal",
  },
  {
    name: "a defect is code",
    when: /\b(?:bugs?(?! reports?| bount(?:y|ies)| bash(?:es)?| trackers?)|race conditions?|deadlocks?|retry loops?|memory leaks?|leaks memory|off-by-one|null pointer|stack traces?|segfaults?|regressions?|crash(?:es|ed)? (?:on|when)|throws? an? \w*\s?(?:exception|error))\b/i,
    gives: "code",
    rulesOut: ["infrastructure"],
    overrides: ["finance", "preference", "customer", "product"],
    leans: "technical",
  },
  {
    name: "a rule about data is security",
    when: /^(?=.*\b(?:data|credentials?|passwords?|keys?|secrets?|tokens?|pii|files|exports?|records|\.env)\b)(?=.*\b(?:never|don'?t|do not|must not|mustn'?t|should not|shouldn'?t|may not|not allowed to)(?: \w+){0,2} (?:paste|share|upload|send|e-?mail|post|commit|copy|copie|store|put|log|print|forward|expose|leave|write down|reuse)(?:e?d|s)?\b)/i,
    gives: "security",
    rulesOut: [],
    overrides: ["preference"],
    leans: "technical",
  },
  {
    name: "a pregnancy is health",
    when: /\b(?:pregnan\w*|expecting (?:a baby|twins)|(?:baby|twins) (?:is|are) due|due date for the baby|morning sickness|prenatal|antenatal|maternity scan)\b/i,
    gives: "health",
    rulesOut: [],
    overrides: ["deadline"],
    leans: "personal",
  },
  {
    name: "the household's money is personal finance",
    when: /\b(?:mortgage|rent(?:al)? (?:is|goes|went)|(?:the|my|our) flat costs|nanny costs|babysitter costs|parking fine|speeding fine|(?:insurance|monthly) premium|premium goes up|tax return|car loan|student loan|owes? (?:\w+ )?(?:\d|£|€|\$|money|quid)|\d+ quid|isa allowance|pocket money|council tax|bills included|household budget)\b/i,
    gives: "finance",
    rulesOut: [],
    leans: "personal",
  },
  {
    name: "saving money is finance",
    when: /\b(?:sav(?:e|es|ing) (?:up )?(?:for|money|towards?)|putting (?:money )?aside|put(?:s|ting)? (?:\w+ )?(?:money|percent|%) (?:aside|into|in)|emergency fund|pension|retirement fund|index funds?|pay(?:s|ing)? off (?:the|a|their|his|her|my) (?:\w+ )?(?:loan|debt|mortgage)|budgeting)\b/i,
    gives: "finance",
    rulesOut: [],
    overrides: ["preference"],
  },
];

/**
 * A job title, a role or a kind of company names a field, not what the memory is about (issue 30: "the offer for the
 * product manager expires on Monday" is hiring and a deadline, not product). Each field word names the topic it would
 * otherwise suggest; inside a title that topic is dropped, unless its own phrases appear outside every title too.
 */
const FIELD_TOPIC: ReadonlyArray<readonly [RegExp, Topic]> = [
  [/^(?:product|products)$/i, "product"],
  [/^(?:sales|account|customer success|customer support|support|customer|client|key account)$/i, "customer"],
  [/^(?:security|infosec|cybersecurity|cyber ?security|appsec|information security)$/i, "security"],
  [/^(?:finance|financial|accounting|payroll|tax|billing|payments?|fintech|insurance|investment|banking)$/i, "finance"],
  [/^(?:health|healthcare|health insurance|medical|fitness|wellness|dental|pharma|pharmaceutical)$/i, "health"],
  [/^(?:travel|travel insurance)$/i, "travel"],
  [/^(?:infrastructure|infra|platform|devops|cloud|site reliability|sre|network|database|data|hosting)$/i, "infrastructure"],
  [/^(?:software|backend|back-end|frontend|front-end|full-?stack|mobile|web|ios|android|qa|test|ml|machine learning)$/i, "code"],
  [/^(?:project|program|programme|delivery)$/i, "project"],
  [/^(?:events?|event planning)$/i, "event"],
  [/^(?:learning|training|education|edtech|e-learning)$/i, "learning"],
  [/^(?:recruiting|recruitment|talent|talent acquisition|people|hr|staffing)$/i, "hiring"],
  [/^(?:marketing|growth)$/i, "product"],
];
/** Every field word of FIELD_TOPIC in one alternation (the regex backtracks into a longer one, "health insurance"). */
const FIELD = FIELD_TOPIC.map(([re]) => re.source.slice("^(?:".length, -")$".length)).join("|");
const ROLE =
  "manager|managers|engineer|engineers|engineering manager|designer|designers|lead|leads|director|owner|owners|analyst|analysts|architect|specialist|consultant|representative|rep|reps|executive|coordinator|officer|associate|intern|administrator|admin|developer|developers|scientist|team|department|org|agency|agent|company|companies|firm|startup|provider|insurer|vendor|recruiter|partner|advisor|adviser|planner|instructor|nurse|assistant|operations|ops|job|role|position|opening|hire|candidate|interview";
/** "product manager", "product marketing manager", "sales engineer", "health insurance company", "head of product". */
const TITLE = new RegExp(
  `\\b(?:(?:senior|junior|staff|principal|lead|chief|associate|head|new|former|our|their|a|an|the)\\s+)*(?:(${FIELD})\\s+(?:(?:${FIELD})\\s+)?(?:${ROLE})\\b|(?:head|vp|vice president|director|chief|svp|evp|lead) of (${FIELD})\\b)`,
  "gi",
);

/**
 * A part of a system names what it handles, not what the memory is about (issue 30: "write unit tests for the tax
 * calculation module" is code and a task, not finance): a field word up to two words before a module, service, worker,
 * pipeline, endpoint… drops its topic, like a title's.
 */
const SYSTEM_FIELD_TOPIC: ReadonlyArray<readonly [RegExp, Topic]> = [
  [/^(?:tax|vat|billing|payments?|payroll|invoic\w*|pricing|price|accounting|expenses?|budget|currency|ledger|refunds?)$/i, "finance"],
  [/^(?:health|healthcheck|medical)$/i, "health"],
  [/^(?:travel|booking|flights?)$/i, "travel"],
  [/^(?:events?)$/i, "event"],
  [/^(?:hiring|recruiting|candidates?|applicants?)$/i, "hiring"],
  [/^(?:learning|training|course)$/i, "learning"],
];
const SYSTEM_FIELD = SYSTEM_FIELD_TOPIC.map(([re]) => re.source.slice("^(?:".length, -")$".length)).join("|");
const SYSTEM = new RegExp(
  `\\b(${SYSTEM_FIELD})(?:[ -][a-z]+){0,2} (?:module|modules|service|services|microservice|worker|workers|pipeline|endpoint|endpoints|handler|handlers|api|job|jobs|cron|table|tables|schema|component|script|webhook|webhooks|queue|integration|codebase|repo|library|package|engine|calculator|logic|code|check|checks|tests?|page|form|flow|bot|microservices)\\b`,
  "gi",
);
/**
 * A company's name with a field word in it ("a demo for Halden Health", "Kappa Finance"), and someone's line of work
 * ("works in finance", "does customer success at Zendesk"): the field's topic is no more the memory's than a title's.
 */
const NAMED = new RegExp(
  `(?<=[a-z,;:)]\\s|\\b(?:for|at|with|from|to|of|by|and|join|joins|joined)\\s)[A-Z][\\w&'-]+\\s+(${FIELD})\\b`,
  "gi",
);
const LINE_OF_WORK = new RegExp(
  `\\b(?:(?:works?|working|a job|a career|jobs?) in (${FIELD})|does (customer success|customer support|sales|accounting|payroll|marketing))\\b`,
  "gi",
);
/** Each with a cheap test first: most memories have no system part, no two capitalized words and no line of work. */
const FIELD_NAMES: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [
    SYSTEM,
    /\b(?:modules?|services?|microservices?|workers?|pipeline|endpoints?|handlers?|api|jobs?|cron|tables?|schema|component|script|webhooks?|queue|integration|codebase|repo|library|package|engine|calculator|logic|code|checks?|tests?|page|form|flow|bot)\b/i,
  ],
  [NAMED, /\S\s+[A-Z][\w&'-]*\s+[A-Z]/],
  [LINE_OF_WORK, /\b(?:in|does) /i],
];
/** A name is capitalized, and so is its field word ("Halden Health", not "for mental health"). */
const capitalized = (m: RegExpMatchArray, i: number) => /^[A-Z]/.test(m[0]) && /^[A-Z]/.test(m[i]!);

/** The topics that job titles and kinds of company in `text` would wrongly suggest (see FIELD_TOPIC). */
export function titledTopics(text: string): ReadonlySet<Topic> {
  // Scoring and picking ask about the same text one after the other: the last answer is kept.
  if (text !== lastTitled.text) lastTitled = { text, topics: findTitledTopics(text) };
  return lastTitled.topics;
}
let lastTitled: { text: string; topics: ReadonlySet<Topic> } = { text: "", topics: new Set() };
function findTitledTopics(text: string): Set<Topic> {
  const out = new Set<Topic>();
  const titled: Topic[] = [];
  const fieldOf = (word: string, table: typeof FIELD_TOPIC) => table.find(([re]) => re.test(word.toLowerCase().replace(/\s+/g, " ")))?.[1];
  let rest = text;
  for (const [re, maybe] of FIELD_NAMES) {
    if (!maybe.test(text)) continue;
    for (const m of text.matchAll(re)) {
      const i = m[1] === undefined ? 2 : 1;
      if (re === NAMED && !capitalized(m, i)) continue;
      const t = fieldOf(m[i]!, re === SYSTEM ? SYSTEM_FIELD_TOPIC : FIELD_TOPIC);
      if (!t) continue;
      titled.push(t);
      rest = rest.replace(m[0], " ");
    }
  }
  if (
    titled.length === 0 &&
    !/\b(?:head|vp|vice|director|chief|svp|evp|lead|manager|engineer|designer|owner|analyst|architect|specialist|consultant|rep|representative|executive|coordinator|officer|associate|intern|admin|administrator|developer|scientist|team|department|org|agency|agent|compan|firm|startup|provider|insurer|vendor|recruiter|partner|advis|planner|instructor|nurse|assistant|operations|ops|job|role|position|opening|hire|candidate|interview)/i.test(
      text,
    )
  )
    return out;
  for (const m of text.matchAll(TITLE)) {
    const field = (m[1] ?? m[2] ?? "").toLowerCase().replace(/\s+/g, " ");
    const hit = FIELD_TOPIC.find(([re]) => re.test(field));
    if (hit) titled.push(hit[1]);
  }
  if (!titled.length) return out;
  // The topic stays when its own phrases appear outside the titles ("the product manager wants the free tier gone").
  rest = rest.replace(TITLE, " ");
  for (const t of titled) if (!lexiconScore(TOPIC_LEXICON[t], rest)) out.add(t);
  return out;
}

/** The topics `scores` choose under `calibration`, best first (may be empty). */
export function pickTopics(
  topicScores: Map<Topic, number>,
  calibration: TopicCalibration,
  text: string,
  topicOrder: readonly Topic[],
): Topic[] {
  const margins = new Map<Topic, number>();
  const needsWord = new Set(calibration.needsWord ?? []);
  const given = new Set<Topic>();
  const ruledOut = new Set<Topic>();
  for (const rule of DECIDING_RULES) {
    if (!rule.when.test(text)) continue;
    given.add(rule.gives);
    for (const t of rule.rulesOut) if (!lexiconScore(TOPIC_LEXICON[t], text)) ruledOut.add(t);
    for (const t of rule.overrides ?? []) ruledOut.add(t);
  }
  for (const t of titledTopics(text)) ruledOut.add(t);
  const below = new Map<Topic, number>();
  for (const [t, s] of topicScores) {
    if (ruledOut.has(t) || (needsWord.has(t) && !lexiconScore(TOPIC_LEXICON[t], text))) continue;
    const threshold = calibration.thresholds[t];
    if (threshold > 0 && s >= threshold) margins.set(t, Math.max(margins.get(t) ?? 0, s / threshold));
    else if (threshold > 0 && calibration.bestBelow !== undefined && s >= calibration.bestBelow * threshold) below.set(t, s / threshold);
  }
  if (margins.size === 0 && given.size === 0 && below.size) return [ranked(below, topicOrder)[0]![0]];
  const order = ranked(margins, topicOrder);
  const best = order[0]?.[1] ?? 0;
  const words = text.trim().split(/\s+/).length;
  const cap = words <= SHORT_TEXT_WORDS ? calibration.shortCap : (calibration.longCap ?? MAX_TOPICS);
  const kept = order.filter(([t, m]) => !given.has(t) && m >= calibration.ratio * best).map(([t]) => t);
  return [...topicOrder.filter((t) => given.has(t)), ...kept].slice(0, cap);
}

/** One domain then one to three distinct topics; never empty, never invalid. */
export function chooseCategories(
  scores: CategoryScores,
  domainOrder: readonly Domain[],
  topicOrder: readonly Topic[],
  text = "",
  calibration: TopicCalibration = RULES_CALIBRATION,
): string[] {
  const topics = pickTopics(scores.topics, calibration, text, topicOrder);
  const domainRanked = ranked(scores.domains, domainOrder);
  const domain = domainRanked[0]?.[0] ?? (topics.length ? leaningDomain(topics[0]!) : FALLBACK_CATEGORIES[0]);
  if (topics.length === 0) topics.push(domainRanked.length ? DOMAIN_DEFAULT_TOPIC[domain] : FALLBACK_CATEGORIES[1]);
  return [domain, ...topics];
}

function leaningDomain(topic: Topic): Domain {
  const entries = Object.entries(TOPIC_DOMAIN[topic]) as Array<[Domain, number]>;
  return entries.sort((a, b) => b[1] - a[1])[0]?.[0] ?? FALLBACK_CATEGORIES[0];
}

/** Adds a classifier's per-label scores (negative ones count as zero) to the lexicon's, `topicWeight` and `domainWeight` times. */
export function addModelScores(
  scores: CategoryScores,
  model: { domains: Map<Domain, number>; topics: Map<Topic, number> },
  topicWeight: number,
  domainWeight = topicWeight,
): CategoryScores {
  const domains = new Map(scores.domains);
  const topics = new Map(scores.topics);
  for (const [d, v] of model.domains) if (v > 0) domains.set(d, (domains.get(d) ?? 0) + domainWeight * v);
  for (const [t, v] of model.topics) if (v > 0) topics.set(t, (topics.get(t) ?? 0) + topicWeight * v);
  return { domains, topics };
}
