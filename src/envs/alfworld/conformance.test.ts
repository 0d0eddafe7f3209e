/**
 * The shared `Env` conformance suite on ALFWorld: a few real evaluation games (when
 * `../shared/data/alfworld` exists) and generated games (always).
 */
import { test } from "node:test";
import { runEnvConformance } from "../../testing/env-conformance.ts";
import { alfworldExpertFactory, alfworldGeneratedTasks, alfworldTasks, makeAlfworldEnv, NOTHING_HAPPENS } from "./index.ts";
import { alfworldDataRoot, NO_DATA } from "./test-data.ts";

const sampleActions = [
  "look", "inventory", "go to bed 1", "go to countertop 1", "take apple 1 from countertop 1",
  "put book 2 in sidetable 1", "GO TO BED 1", "", "🙂", "open the fridge",
];
const countedActions = ["look", "inventory", "examine the universe"];

runEnvConformance({
  name: "alfworld (generated)",
  makeEnv: () => makeAlfworldEnv(),
  tasks: [...alfworldGeneratedTasks("train", 3, { seed: 3 }), ...alfworldGeneratedTasks("valid_unseen", 3, { seed: 3 })],
  sampleActions,
  countedActions,
  invalidObservation: () => NOTHING_HAPPENS,
  expert: alfworldExpertFactory(),
});

const data = alfworldDataRoot();
if (data !== undefined) {
  const pick = (split: string, every: number) => alfworldTasks(data, split).filter((_t, i) => i % every === 0);
  runEnvConformance({
    name: "alfworld (real)",
    makeEnv: () => makeAlfworldEnv(),
    tasks: [...pick("valid_seen", 47), ...pick("valid_unseen", 45)],
    sampleActions,
    countedActions,
    invalidObservation: () => NOTHING_HAPPENS,
    expert: alfworldExpertFactory(),
  });
} else {
  test("env conformance: alfworld (real)", { skip: NO_DATA }, () => {});
}
