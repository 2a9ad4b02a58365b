// Feedback with a log line per vote: the counts show in the log without a dashboard.
import type { Logger } from "../../logger.js";
import type { FeedbackBook } from "../../memory/feedback.js";

/** Every vote goes to the log with the running totals. */
export function loggedFeedback(book: FeedbackBook, logger: Logger): FeedbackBook {
  return {
    ...book,
    async record(vote) {
      const recorded = await book.record(vote);
      logger.info(
        {
          runId: vote.runId,
          conversationKey: vote.conversationKey,
          person: vote.person.id,
          rating: vote.rating,
          guard: vote.guard,
          feedback: recorded.totals,
        },
        "feedback",
      );
      return recorded;
    },
  };
}
