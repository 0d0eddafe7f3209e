/** Bit flags for object properties and object state, shared by the game model, engine and goals. */

/** Static object properties (bit flags of `GameObject.props`). */
export const PROP = {
  pickupable: 1,
  heatable: 2,
  coolable: 4,
  cleanable: 8,
  toggleable: 16,
  sliceable: 32,
  receptacleObject: 64,
} as const;

/** Dynamic object state (bit flags of `GameObject.state` and of the engine's state). */
export const STATE = {
  hot: 1,
  cool: 2,
  clean: 4,
  sliced: 8,
  toggled: 16,
  on: 32,
} as const;
