/**
 * The text of the ALFWorld protocol, byte for byte (TextWorld's ALFRED
 * grammar in the "move" version). Pure functions of names and flags; the engine decides what
 * to say, this file only says it. Shared by real and generated games.
 */
import { STATE } from "./flags.ts";

/** Banner that opens every game. */
export const BANNER = "-= Welcome to TextWorld, ALFRED! =-";

/** Answer to any command that is not admissible. */
export const NOTHING_HAPPENS = "Nothing happens.";

/** Prefix of the task line in the reset observation. */
export const TASK_PREFIX = "Your task is to: ";

/** Feedback of `help` (the grammar's help action, with its leading and trailing newline). */
export const HELP_TEXT = `
Available commands:
  look:                             look around your current location
  inventory:                        check your current inventory
  go to (receptacle):               move to a receptacle
  open (receptacle):                open a receptacle
  close (receptacle):               close a receptacle
  take (object) from (receptacle):  take an object from a receptacle
  move (object) to (receptacle):  place an object in or on a receptacle
  examine (something):              examine a receptacle or an object
  use (object):                     use an object
  heat (object) with (receptacle):  heat an object using a receptacle
  clean (object) with (receptacle): clean an object using a receptacle
  cool (object) with (receptacle):  cool an object using a receptacle
  slice (object) with (object):     slice an object using a sharp object
`;

/** `nothing` / `x` / `x, y, and z` (TextWorld's list rule; two items: `x, and y`). */
export function renderList(items: readonly string[]): string {
  if (items.length === 0) return "nothing";
  if (items.length === 1) return items[0]!;
  return items.slice(0, -1).join(", ") + ", and " + items[items.length - 1]!;
}

/** `a <name>` for each name (the article is always `a`). */
export function withArticles(names: readonly string[]): string[] {
  return names.map((n) => `a ${n}`);
}

/** The middle-of-room sentence listing every receptacle. */
export function roomSentence(receptacleNames: readonly string[]): string {
  return `You are in the middle of a room. Looking quickly around you, you see ${renderList(withArticles(receptacleNames))}.`;
}

/** The reset observation: banner, room sentence, task line. */
export function introText(receptacleNames: readonly string[], task: string): string {
  return `${BANNER}\n\n${roomSentence(receptacleNames)}\n\n${TASK_PREFIX}${task}`;
}

/** E(r): what examining or arriving at a receptacle shows. */
export function describeReceptacle(name: string, openable: boolean, opened: boolean, contents: readonly string[]): string {
  if (openable && opened) return `The ${name} is open. In it, you see ${renderList(withArticles(contents))}.`;
  if (openable) return `The ${name} is closed.`;
  return `On the ${name}, you see ${renderList(withArticles(contents))}.`;
}

/** Feedback of `examine <object>` (first matching rule of the grammar). */
export function describeObject(name: string, state: number, toggleable: boolean, sliceable: boolean,
                               receptacleObject: boolean, contents: readonly string[]): string {
  if (receptacleObject) return `This is a normal ${name}. In it, you see ${renderList(withArticles(contents))}.`;
  const hot = (state & STATE.hot) !== 0, cool = (state & STATE.cool) !== 0, clean = (state & STATE.clean) !== 0;
  const sliced = (state & STATE.sliced) !== 0;
  if (clean && hot && sliced) return `This is a hot and clean sliced ${name}.`;
  if (clean && cool && sliced) return `This is a cool and clean sliced ${name}.`;
  if (clean && sliced) return `This is a clean sliced ${name}.`;
  if (hot && sliced) return `This is a hot sliced ${name}.`;
  if (cool && sliced) return `This is a cool sliced ${name}.`;
  if (clean && hot) return `This is a hot and clean ${name}.`;
  if (clean && cool) return `This is a cool and clean ${name}.`;
  if (hot) return `This is a hot ${name}.`;
  if (clean) return `This is a clean ${name}.`;
  if (cool) return `This is a cold ${name}.`;
  if (toggleable && (state & STATE.toggled) !== 0) return `This ${name} is on.`;
  // `This {o} is off.` needs a negated isToggled fact, which no command creates: unreachable.
  if (sliceable && sliced) return `This is a sliced ${name}.`;
  return `There's nothing special about ${name}.`;
}

/** Feedback of `look` at a location with receptacles. */
export function facingSentence(receptacleNames: readonly string[], nextTo: readonly string[]): string {
  return `You are facing the ${renderList(receptacleNames)}. Next to it, you see ${renderList(withArticles(nextTo))}.`;
}

/** Feedback of `inventory`. */
export function inventoryText(heldName: string | undefined): string {
  return heldName === undefined ? "You are not carrying anything." : `You are carrying: a ${heldName}.`;
}
