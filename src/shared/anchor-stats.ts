// The figures observe gives for each anchor city (GridObservation.anchorStats), in this order: the
// game fills them and the observe command documents them from this one list.
export const ANCHOR_STATS = ['units', 'housing', 'food', 'buildings', 'territory', 'fertile', 'adults', 'sick', 'blessed'] as const;

/** What each figure is, for the observe command's description. */
export const ANCHOR_STAT_MEANING: Readonly<Record<(typeof ANCHOR_STATS)[number], string>> = {
  units: 'people living in the city',
  housing: 'people its houses can hold',
  food: 'food in store',
  buildings: 'houses',
  territory: 'tiles of land it owns',
  fertile: "its land's food value (grass 3, forest 2, high soil 1 a tile)",
  adults: 'grown-ups among its people',
  sick: 'its people with the plague',
  blessed: 'ticks left of the longest blessing among its people',
};
