// Checks a real HTTP answer against the repository's OpenAPI 3.1 document (src/contract/openapi.json): the status is
// one the operation documents, the documented headers are present and well formed, and the body validates against
// the response's schema (JSON Schema 2020-12, by ajv).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { ROOT } from "./service.js";

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => void;

export const OPENAPI = JSON.parse(readFileSync(join(ROOT, "src", "contract", "openapi.json"), "utf8")) as any;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(OPENAPI, "openapi");

function resolve(node: any): any {
  while (node?.$ref) {
    node = (node.$ref as string)
      .replace(/^#\//, "")
      .split("/")
      .reduce((at: any, key: string) => at[key], OPENAPI);
  }
  return node;
}

function pointer(ref: string): string {
  return `openapi${ref}`;
}

export interface Answer {
  status: number;
  headers: Headers;
  json: unknown;
}

/** The problems with `answer` as the document describes `method path`; empty when it conforms. */
export function conformanceProblems(method: string, path: string, answer: Answer): string[] {
  const operation = OPENAPI.paths[path]?.[method.toLowerCase()];
  if (!operation) return [`${method} ${path} is not in the document`];
  const response = resolve(operation.responses[String(answer.status)]);
  if (!response) return [`${method} ${path} does not document status ${answer.status}`];
  const problems: string[] = [];
  for (const [name, spec] of Object.entries<any>(response.headers ?? {})) {
    const header = resolve(spec);
    const value = answer.headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`header ${name} is missing`);
      continue;
    }
    if (!ajv.validate(header.schema, value)) problems.push(`header ${name}: ${ajv.errorsText()}`);
  }
  const schemaRef = response.content?.["application/json"]?.schema?.$ref as string | undefined;
  if (schemaRef) {
    const validate = ajv.getSchema(pointer(schemaRef));
    if (!validate) problems.push(`no schema at ${schemaRef}`);
    else if (!validate(answer.json)) problems.push(`body: ${ajv.errorsText(validate.errors)}`);
  }
  return problems;
}

/** The problems with a webhook's JSON body as the document's `webhooks` section describes its event type. */
export function webhookPayloadProblems(body: { type?: unknown }): string[] {
  const type = String(body.type);
  const operation = OPENAPI.webhooks?.[type]?.post;
  if (!operation) return [`webhook ${type} is not in the document`];
  const validate = ajv.getSchema(pointer(operation.requestBody.content["application/json"].schema.$ref));
  if (!validate) return [`no schema for webhook ${type}`];
  return validate(body) ? [] : [`${type}: ${ajv.errorsText(validate.errors)}`];
}
