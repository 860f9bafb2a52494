// context-compaction: Engine.load(objects) + beforeCall, the object path.
import { planObjects, planInfo } from './context-compaction.mjs';
export const name = 'context-compaction plan (JS objects)';
export const output = 'plan';
export const info = planInfo;
export default planObjects;
