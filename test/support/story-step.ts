/**
 * One step of a user's story told in a single test: the steps share what the story built (a session,
 * a stack, ids), so they run in one `it`, and a failure says which step it came from.
 */

/** Runs one named step of a story; an error thrown in it starts with the step's name. */
export async function storyStep<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Error) error.message = `[${name}] ${error.message}`;
    throw error;
  }
}
