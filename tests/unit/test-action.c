// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for action_classify() (action.c): a plan, the verification's
 * verdict and the run's flags in, the outcome a writing verb words out.
 * No sysfs: the function is pure.
 */
#include <errno.h>
#include <stdbool.h>

#include "tsmctl/action.h"
#include "unit.h"

/* A plan after action_apply(): ERR, written or not, done already or not. */
static struct action_plan plan(int err, bool written, bool already)
{
	return (struct action_plan){ .action = ACTION_CONNECT, .err = err, .written = written,
				     .already = already };
}

static enum action_outcome classify(struct action_plan p, enum action_verdict v,
				    unsigned int flags, bool raced)
{
	return action_classify(&p, v, flags, raced);
}

static void already(void)
{
	CHECK(classify(plan(0, false, true), VERDICT_FAILED, 0, false) == OUTCOME_ALREADY);
	CHECK(classify(plan(0, false, true), VERDICT_FAILED, ACTION_STRICT, false) ==
	      OUTCOME_ALREADY_STRICT);
	/* done already comes first, a dry run too */
	CHECK(classify(plan(0, false, true), VERDICT_FAILED, ACTION_DRY_RUN, false) ==
	      OUTCOME_ALREADY);
}

static void dry_run(void)
{
	CHECK(classify(plan(0, false, false), VERDICT_FAILED, ACTION_DRY_RUN, false) ==
	      OUTCOME_WOULD_WRITE);
	/* a check that fails fails a dry run as it would the store */
	CHECK(classify(plan(-EBUSY, false, false), VERDICT_FAILED, ACTION_DRY_RUN, false) ==
	      OUTCOME_FAILED);
}

static void written(void)
{
	CHECK(classify(plan(0, true, false), VERDICT_OK, 0, false) == OUTCOME_DONE);
	CHECK(classify(plan(0, true, false), VERDICT_OK, ACTION_STRICT, false) == OUTCOME_DONE);
	CHECK(classify(plan(0, true, false), VERDICT_WARNING, 0, false) == OUTCOME_DONE);
	CHECK(classify(plan(0, true, false), VERDICT_WARNING, ACTION_STRICT, false) ==
	      OUTCOME_DONE_WARNED_STRICT);
	CHECK(classify(plan(0, true, false), VERDICT_INSECURE, 0, false) == OUTCOME_NOT_SHOWN);
	CHECK(classify(plan(0, true, false), VERDICT_FAILED, 0, false) == OUTCOME_NOT_SHOWN);
	/* an EINTR after the store: the kernel completed it, the verdict stands */
	CHECK(classify(plan(-EINTR, true, false), VERDICT_OK, 0, false) == OUTCOME_DONE);
	CHECK(classify(plan(-EINTR, true, false), VERDICT_WARNING, 0, false) == OUTCOME_DONE);
	CHECK(classify(plan(-EINTR, true, false), VERDICT_WARNING, ACTION_STRICT, false) ==
	      OUTCOME_NOT_SHOWN);
	CHECK(classify(plan(-EINTR, true, false), VERDICT_INSECURE, 0, false) == OUTCOME_NOT_SHOWN);
}

static void refused(void)
{
	/* EBUSY with the rescan showing what was asked: another writer's store */
	CHECK(classify(plan(-EBUSY, true, false), VERDICT_FAILED, 0, true) == OUTCOME_RACED);
	CHECK(classify(plan(-EBUSY, true, false), VERDICT_FAILED, ACTION_STRICT, true) ==
	      OUTCOME_RACED_STRICT);
	CHECK(classify(plan(-EBUSY, true, false), VERDICT_FAILED, 0, false) == OUTCOME_FAILED);
	/* a check's EBUSY (nothing written) is no race */
	CHECK(classify(plan(-EBUSY, false, false), VERDICT_FAILED, 0, true) == OUTCOME_FAILED);
	CHECK(classify(plan(-EINTR, false, false), VERDICT_FAILED, 0, false) ==
	      OUTCOME_INTERRUPTED);
	CHECK(classify(plan(-ENXIO, true, false), VERDICT_FAILED, 0, false) == OUTCOME_FAILED);
	CHECK(classify(plan(-EROFS, false, false), VERDICT_FAILED, 0, false) == OUTCOME_FAILED);
}

static void store_taken(void)
{
	struct action_plan p = plan(0, true, false);

	CHECK(action_store_taken(&p));
	p.err = -EINTR;
	CHECK(action_store_taken(&p));
	p.err = -EIO;
	CHECK(!action_store_taken(&p));
	p = plan(0, false, false);
	CHECK(!action_store_taken(&p));
}

int main(void)
{
	already();
	dry_run();
	written();
	refused();
	store_taken();
	return unit_report();
}
