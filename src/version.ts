// The package version, sent in every request's User-Agent (a test keeps it equal to package.json's).
export const VERSION = "0.3.0";
