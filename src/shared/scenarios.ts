// decisions §4: the scenario presets. Their index is mirrored in shared memory (kScenario), so a
// pool thread's health answer follows an agents.json reload (decisions §10).
export const SCENARIOS = ['sandbox', 'coop', 'pvp', 'hierarchical'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];
