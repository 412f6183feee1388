/**
 * Model ids this version no longer ships (0.2.0's default, USE-lite, alone or in its hybrids): `serve` re-embeds such
 * vectors by itself at start. Vectors of a model it can still run are re-embedded only by `admin reembed`.
 * (A module of its own: the service core imports it without loading any model code.)
 */
export const RETIRED_EMBEDDER_PREFIX = "use-lite/";
