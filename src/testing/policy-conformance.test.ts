// The Policy conformance suite on every implementation: scripted, embedded, and remote (the
// OpenAI-compatible server over the embedded policy, in process).
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { presetConfig } from "../model/config.ts";
import { trainBpe } from "../model/tokenizer/train.ts";
import { EmbeddedPolicy } from "../policy/embedded.ts";
import { RemotePolicy } from "../policy/remote.ts";
import { createOpenAiServer } from "../policy/openai-server.ts";
import { runPolicyConformance } from "./policy-conformance.ts";
import { ScriptedPolicy } from "./scripted-policy.ts";

const tokenizer = trainBpe(["The agent reads the room and acts. It goes to the table and takes the key."], { vocabSize: 300 });
const embedded = () => EmbeddedPolicy.create({ config: presetConfig("tiny", { vocabSize: tokenizer.vocabSize, maxContext: 256 }), tokenizer, seed: 8 });

runPolicyConformance({
  name: "ScriptedPolicy",
  make: async () => new ScriptedPolicy(Array(100).fill(() => "<think>ok</think><action>look</action>")),
  skip: [{ check: "constraint", reason: "a script's responses are fixed text; its mask check is tested in agent/rollout.test.ts" }],
});

runPolicyConformance({ name: "EmbeddedPolicy", make: async () => embedded() });

let server: Server | undefined;
runPolicyConformance({
  name: "RemotePolicy (seed's OpenAI server)",
  make: async () => {
    server = createOpenAiServer(embedded(), { modelName: "tiny" });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    return RemotePolicy.connect({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, model: "tiny", tokenizer });
  },
  cleanup: async () => {
    await new Promise((r) => server?.close(r));
  },
  skip: [{ check: "constraint", reason: "the OpenAI API has no per-token mask; RemotePolicy refuses constraints with a RemoteError" }],
});
