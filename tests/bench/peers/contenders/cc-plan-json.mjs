// context-compaction: plan(settings, jsonString), the stateless bulk path.
import { planJson, planInfo } from './context-compaction.mjs';
export const name = 'context-compaction plan (JSON string)';
export const input = 'json';
export const output = 'plan';
export const info = planInfo;
export default planJson;
