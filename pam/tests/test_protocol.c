/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The reply parser against a table of replies, each fed whole, byte by byte
 * and split at every offset: the result must not depend on how the pipe
 * happened to chunk the bytes.
 *
 * Counting: a scenario is one reply (all its feeds must agree) or one of the
 * single checks below (outcome table, sticky error, strikes value); the
 * "N passed, M failed" line counts scenarios.  Each feed and each single check
 * is an assertion; their number is printed on its own line, "(N assertions)".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <security/_pam_types.h>

#include "protocol.h"

struct result {
	enum reply_event event; /* REPLY_DONE or REPLY_PROTOCOL_ERROR */
	int outcome;		/* when REPLY_DONE */
	const char *error;	/* when REPLY_PROTOCOL_ERROR */
	char messages[8192];	/* "I:text|E:text|" in the order relayed */
};

struct test_case {
	const char *name;
	const char *input;
	size_t len; /* 0: strlen(input) */
	enum reply_event event;
	int outcome;
	const char *error;
	const char *messages;
};

static int passed, failed;		  /* scenarios */
static int assertions, assertions_failed; /* every feed and single check */
static int scenario_failures;		  /* assertions failed in the current scenario */

/* One assertion of the current scenario. */
static void expect(int ok, const char *name, const char *how, const char *detail)
{
	assertions++;
	if (ok)
		return;
	assertions_failed++;
	scenario_failures++;
	printf("FAIL: %s (%s): %s\n", name, how, detail);
}

/* The current scenario passes when none of its assertions failed. */
static void end_scenario(void)
{
	if (scenario_failures == 0)
		passed++;
	else
		failed++;
	scenario_failures = 0;
}

/* A scenario of one assertion. */
static void check(int ok, const char *name, const char *how, const char *detail)
{
	expect(ok, name, how, detail);
	end_scenario();
}

static void append_msg(struct result *r, char kind, const char *text)
{
	size_t n = strlen(r->messages);

	snprintf(r->messages + n, sizeof(r->messages) - n, "%c:%.*s|", kind, 40, text);
}

/* Feed input in chunks of `chunk` bytes (after a first chunk of `first`), then EOF. */
static void run(const char *in, size_t len, size_t first, size_t chunk, struct result *r)
{
	struct reply_parser p;
	size_t pos = 0;

	memset(r, 0, sizeof(*r));
	reply_init(&p);
	while (pos < len) {
		size_t n = pos == 0 && first ? first : chunk;
		size_t off = 0;

		if (n > len - pos)
			n = len - pos;
		while (off < n) {
			const char *text = NULL;
			size_t used = 0;
			enum reply_event ev = reply_feed(&p, in + pos + off, n - off, &used, &text);

			if (used == 0 && ev != REPLY_PROTOCOL_ERROR && off < n) {
				r->event = REPLY_PROTOCOL_ERROR;
				r->error = "parser made no progress";
				return;
			}
			off += used;
			if (ev == REPLY_INFO)
				append_msg(r, 'I', text);
			else if (ev == REPLY_ERROR_MSG)
				append_msg(r, 'E', text);
			else if (ev == REPLY_PROTOCOL_ERROR) {
				r->event = ev;
				r->error = p.error;
				return;
			}
		}
		pos += n;
	}
	r->event = reply_finish(&p);
	r->outcome = (int)p.outcome;
	r->error = p.error;
}

static void check_result(const struct test_case *tc, const struct result *r, const char *how)
{
	char detail[256];

	snprintf(detail, sizeof(detail), "event %d outcome %d error '%s' messages '%.80s'",
		 r->event, r->outcome, r->error ? r->error : "", r->messages);
	int ok = r->event == tc->event;

	if (ok && tc->event == REPLY_DONE)
		ok = r->outcome == tc->outcome;
	if (ok && tc->event == REPLY_PROTOCOL_ERROR)
		ok = r->error != NULL && strcmp(r->error, tc->error) == 0;
	if (ok)
		ok = strcmp(r->messages, tc->messages ? tc->messages : "") == 0;
	expect(ok, tc->name, how, detail);
}

static void run_case(const struct test_case *tc)
{
	size_t len = tc->len ? tc->len : strlen(tc->input);
	struct result *r = malloc(sizeof(*r));
	char how[64];

	if (r == NULL)
		abort();
	run(tc->input, len, 0, len ? len : 1, r);
	check_result(tc, r, "whole");
	run(tc->input, len, 0, 1, r);
	check_result(tc, r, "byte by byte");
	/* Every split point of short inputs; a sample of long ones. */
	for (size_t cut = 1; cut < len; cut += len < 300 ? 1 : 97) {
		snprintf(how, sizeof(how), "split at %zu", cut);
		run(tc->input, len, cut, len, r);
		check_result(tc, r, how);
	}
	free(r);
	end_scenario();
}

#define H	"touchauth 1\n"
#define DONE(o) REPLY_DONE, o, NULL
#define ERR(e)	REPLY_PROTOCOL_ERROR, 0, e

static const struct test_case cases[] = {
	{ "success with a message", H "info Place your finger on the sensor\nresult success\n", 0,
	  DONE(TA_SUCCESS), "I:Place your finger on the sensor|" },
	{ "authenticationFailed after messages",
	  H
	  "info Place your finger\nerror Try Again\nerror Try Again\nresult authenticationFailed\n",
	  0, DONE(TA_AUTHENTICATION_FAILED), "I:Place your finger|E:Try Again|E:Try Again|" },
	{ "no messages", H "result userFallback\n", 0, DONE(TA_USER_FALLBACK), "" },
	{ "utf-8 text is printable",
	  H "info \xe8\xaf\xb7\xe8\xbd\xbb\xe8\xa7\xa6\nresult userCancel\n", 0,
	  DONE(TA_USER_CANCEL), "I:\xe8\xaf\xb7\xe8\xbd\xbb\xe8\xa7\xa6|" },
	{ "text with inner and trailing spaces", H "info  a  b \nresult systemCancel\n", 0,
	  DONE(TA_SYSTEM_CANCEL), "I: a  b |" },

	{ "a strikes line before the result",
	  H "error Not recognized\nstrikes 3\nresult authenticationFailed\n", 0,
	  DONE(TA_AUTHENTICATION_FAILED), "E:Not recognized|" },
	{ "strikes 0 and a success", H "strikes 0\nresult success\n", 0, DONE(TA_SUCCESS), "" },
	{ "second strikes line", H "strikes 1\nstrikes 2\nresult success\n", 0,
	  ERR("second strikes line"), "" },
	{ "strikes without a number", H "strikes \nresult success\n", 0, ERR("bad strikes"), "" },
	{ "negative strikes", H "strikes -1\nresult success\n", 0, ERR("bad strikes"), "" },
	{ "strikes too large", H "strikes 10000\nresult success\n", 0, ERR("bad strikes"), "" },
	{ "strikes with a space", H "strikes 1 \nresult success\n", 0, ERR("bad strikes"), "" },
	{ "strikes after the result", H "result success\nstrikes 1\n", 0, ERR("data after result"),
	  "" },
	{ "strikes alone is no result", H "strikes 2\n", 0, ERR("no result"), "" },

	/* `overlap PID` (the other request's helper, for the audit line): a pid or garbage. */
	{ "an overlap line before the result",
	  H "info Another request\nstrikes 0\noverlap 4242\nresult userFallback\n", 0,
	  DONE(TA_USER_FALLBACK), "I:Another request|" },
	{ "overlap at PID_MAX_LIMIT", H "overlap 4194304\nresult userFallback\n", 0,
	  DONE(TA_USER_FALLBACK), "" },
	{ "overlap over PID_MAX_LIMIT", H "overlap 4194305\nresult userFallback\n", 0,
	  ERR("bad overlap pid"), "" },
	{ "overlap of eight digits", H "overlap 10000000\nresult userFallback\n", 0,
	  ERR("bad overlap pid"), "" },
	{ "overlap 0", H "overlap 0\nresult userFallback\n", 0, ERR("bad overlap pid"), "" },
	{ "overlap with a leading zero", H "overlap 042\nresult userFallback\n", 0,
	  ERR("bad overlap pid"), "" },
	{ "negative overlap", H "overlap -1\nresult userFallback\n", 0, ERR("bad overlap pid"),
	  "" },
	{ "overlap with a sign", H "overlap +42\nresult userFallback\n", 0, ERR("bad overlap pid"),
	  "" },
	{ "overlap without a pid", H "overlap \nresult userFallback\n", 0, ERR("bad overlap pid"),
	  "" },
	{ "overlap with a space after", H "overlap 42 \nresult userFallback\n", 0,
	  ERR("bad overlap pid"), "" },
	{ "overlap in hex", H "overlap 0x2a\nresult userFallback\n", 0, ERR("bad overlap pid"),
	  "" },
	{ "second overlap line", H "overlap 42\noverlap 43\nresult userFallback\n", 0,
	  ERR("second overlap line"), "" },
	{ "overlap after the result", H "result userFallback\noverlap 42\n", 0,
	  ERR("data after result"), "" },
	{ "bare overlap", H "overlap\nresult userFallback\n", 0, ERR("unknown line"), "" },

	{ "empty input", "", 0, ERR("missing header"), "" },
	{ "missing header", "result success\n", 0, ERR("missing header"), "" },
	{ "wrong version", "touchauth 2\nresult success\n", 0, ERR("missing header"), "" },
	{ "header with trailing space", "touchauth 1 \nresult success\n", 0, ERR("missing header"),
	  "" },
	{ "header without newline", "touchauth 1", 0, ERR("incomplete line"), "" },
	{ "header only", H, 0, ERR("no result"), "" },
	{ "messages but no result", H "info a\n", 0, ERR("no result"), "I:a|" },
	{ "result without newline", H "result success", 0, ERR("incomplete line"), "" },
	{ "line after result", H "result success\ninfo late\n", 0, ERR("data after result"), "" },
	{ "second result", H "result authenticationFailed\nresult success\n", 0,
	  ERR("data after result"), "" },
	{ "byte after result", H "result success\nx", 0, ERR("data after result"), "" },
	{ "empty line after result", H "result success\n\n", 0, ERR("data after result"), "" },
	{ "unknown outcome", H "result ok\n", 0, ERR("unknown outcome"), "" },
	{ "outcome in the wrong case", H "result Success\n", 0, ERR("unknown outcome"), "" },
	{ "outcome with trailing space", H "result success \n", 0, ERR("unknown outcome"), "" },
	{ "result without outcome", H "result \n", 0, ERR("unknown outcome"), "" },
	{ "bare result", H "result\n", 0, ERR("unknown line"), "" },
	{ "unknown word", H "warning hot\nresult success\n", 0, ERR("unknown line"), "" },
	{ "bare info", H "info\nresult success\n", 0, ERR("unknown line"), "" },
	{ "empty info", H "info \nresult success\n", 0, ERR("empty message"), "" },
	{ "empty error", H "error \nresult success\n", 0, ERR("empty message"), "" },
	{ "empty line", H "\nresult success\n", 0, ERR("unknown line"), "" },
	{ "CR before LF", H "info a\r\nresult success\n", 0, ERR("control byte"), "" },
	{ "CRLF header", "touchauth 1\r\nresult success\n", 0, ERR("control byte"), "" },
	{ "SOH in text",
	  H "info a\x01"
	    "b\nresult success\n",
	  0, ERR("control byte"), "" },
	{ "TAB in text", H "info a\tb\nresult success\n", 0, ERR("control byte"), "" },
	{ "DEL in text", H "info a\x7f\nresult success\n", 0, ERR("control byte"), "" },
	{ "NUL in text", H "info a\0b\nresult success\n",
	  sizeof(H "info a\0b\nresult success\n") - 1, ERR("control byte"), "" },
	{ "ESC in result line", H "result \x1b[2Jsuccess\n", 0, ERR("control byte"), "" },
	{ "binary garbage", "\x89PNG\r\n\x1a\n", 0, ERR("control byte"), "" },
	{ "text garbage", "Segmentation fault\n", 0, ERR("missing header"), "" },
	{ "message before garbage is still relayed", H "info shown\nFOO\n", 0, ERR("unknown line"),
	  "I:shown|" },
};

/* Replies built at run time: long lines and line counts. */
static void run_generated(void)
{
	static char buf[80 * 1024], msgs[63 * 4 + 1];
	struct test_case tc;
	size_t n;

	for (int o = 0; o < TA_OUTCOME_COUNT; o++) {
		snprintf(buf, sizeof(buf), H "result %s\n", ta_outcomes[o].name);
		tc = (struct test_case){ ta_outcomes[o].name, buf, 0, DONE(o), "" };
		run_case(&tc);
	}

	/*
	 * "info " and len bytes of text, then a result: 1000 bytes of text is the
	 * limit; 1023 bytes + '\n' is a line (here too long a message), 1024 + '\n'
	 * is not; an endless line (no result) is not either.
	 */
	static const struct {
		struct test_case tc;
		size_t text;
		int endless;
	} sized[] = {
		{ { "1000-byte message", NULL, 0, DONE(TA_SUCCESS),
		    "I:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa|" },
		  1000,
		  0 },
		{ { "1001-byte message", NULL, 0, ERR("message too long"), "" }, 1001, 0 },
		{ { "1024-byte line", NULL, 0, ERR("message too long"), "" }, 1018, 0 },
		{ { "1025-byte line", NULL, 0, ERR("line too long"), "" }, 1019, 0 },
		{ { "endless line", NULL, 0, ERR("line too long"), "" }, 5000, 1 },
	};
	n = (size_t)snprintf(buf, sizeof(buf), H "info ");
	for (size_t i = 0; i < sizeof(sized) / sizeof(sized[0]); i++) {
		size_t end = n + sized[i].text;

		memset(buf + n, 'a', sized[i].text);
		snprintf(buf + end, sizeof(buf) - end, "%s",
			 sized[i].endless ? "" : "\nresult success\n");
		tc = sized[i].tc;
		tc.input = buf;
		run_case(&tc);
	}

	/* 64 lines in all: header, 62 messages, result. */
	n = (size_t)snprintf(buf, sizeof(buf), H);
	for (int i = 0; i < 62; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "error x\n");
	snprintf(buf + n, sizeof(buf) - n, "result success\n");
	for (int i = 0; i < 63; i++)
		memcpy(msgs + 4 * i, "E:x|", 4);
	msgs[62 * 4] = '\0';
	tc = (struct test_case){ "64 lines", buf, 0, DONE(TA_SUCCESS), msgs };
	run_case(&tc);

	/* One more message: the 65th line is refused; the 63 before it were shown. */
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "error x\n");
	snprintf(buf + n, sizeof(buf) - n, "result success\n");
	msgs[62 * 4] = 'E';
	tc = (struct test_case){ "65 lines", buf, 0, ERR("too many lines"), msgs };
	run_case(&tc);
}

/* The one outcome -> PAM code table of docs/PROTOCOL.md. */
static void check_mapping(void)
{
	for (int o = 0; o < TA_OUTCOME_COUNT; o++) {
		int want = o == TA_SUCCESS		   ? PAM_SUCCESS
			   : o == TA_AUTHENTICATION_FAILED ? PAM_MAXTRIES
			   : o == TA_USER_CANCEL	   ? PAM_ABORT
							   : PAM_AUTHINFO_UNAVAIL;

		check(ta_outcomes[o].pam_code == want, ta_outcomes[o].name, "pam code",
		      "wrong code");
		check(outcome_from_name(ta_outcomes[o].name) == o, ta_outcomes[o].name, "name",
		      "round trip");
	}
	check(outcome_from_name("") == -1 && outcome_from_name("succes") == -1, "unknown names",
	      "lookup", "accepted");
	/* A zeroed verdict (struct verdict, struct attempt of pam_touchauth.c) refuses. */
	{
		struct {
			enum ta_outcome outcome;
		} zeroed;

		memset(&zeroed, 0, sizeof(zeroed));
		check(zeroed.outcome != TA_SUCCESS &&
			  ta_outcomes[zeroed.outcome].pam_code != PAM_SUCCESS &&
			  strcmp(ta_outcomes[zeroed.outcome].name, "systemCancel") == 0,
		      "a zeroed outcome", "is systemCancel, the password", "zero is not a refusal");
	}
}

/* A protocol error is sticky: more input cannot turn it into a result. */
static void check_sticky(void)
{
	struct reply_parser p;
	const char *text;
	size_t used;
	static const char bad[] = "nope\n", good[] = H "result success\n";

	reply_init(&p);
	(void)reply_feed(&p, bad, sizeof(bad) - 1, &used, &text);
	check(reply_feed(&p, good, sizeof(good) - 1, &used, &text) == REPLY_PROTOCOL_ERROR &&
		  reply_finish(&p) == REPLY_PROTOCOL_ERROR,
	      "sticky error", "feed after error", "recovered");
}

/* Feeds a whole reply; the parser's verdict at its end. */
static enum reply_event parse_whole(struct reply_parser *p, const char *in)
{
	size_t used;
	const char *text;
	size_t pos = 0, len = strlen(in);

	reply_init(p);
	while (pos < len &&
	       reply_feed(p, in + pos, len - pos, &used, &text) != REPLY_PROTOCOL_ERROR)
		pos += used;
	return reply_finish(p);
}

/* The strikes line is kept for the audit line: N when given, -1 without one. */
static int strikes_of(const char *in)
{
	struct reply_parser p;

	return parse_whole(&p, in) == REPLY_DONE ? p.strikes : -2;
}

/* The overlap line's pid for the audit line: the pid, 0 without one, -2 for a bad reply. */
static int overlap_of(const char *in)
{
	struct reply_parser p;

	return parse_whole(&p, in) == REPLY_DONE ? p.overlap : -2;
}

static void check_overlap(void)
{
	check(overlap_of(H "overlap 4242\nresult userFallback\n") == 4242, "overlap 4242", "value",
	      "not 4242");
	check(overlap_of(H "overlap 4194304\nresult userFallback\n") == 4194304, "overlap 4194304",
	      "value", "not 4194304");
	check(overlap_of(H "result userFallback\n") == 0, "no overlap line", "value", "not 0");
	check(overlap_of(H "overlap 4194305\nresult userFallback\n") == -2, "overlap 4194305",
	      "value", "believed");
}

static void check_strikes(void)
{
	check(strikes_of(H "strikes 3\nresult authenticationFailed\n") == 3, "strikes 3", "value",
	      "not 3");
	check(strikes_of(H "strikes 0042\nresult success\n") == 42, "strikes 0042", "value",
	      "not 42");
	check(strikes_of(H "result success\n") == -1, "no strikes line", "value", "not -1");
}

/* The request's encoder writes only lines the helper takes, in docs/PROTOCOL.md's order. */
static int request_is(const struct request *r, const char *want)
{
	return r->len == strlen(want) && memcmp(r->buf, want, r->len) == 0;
}

static void check_request(void)
{
	static struct request r;
	static char long_arg[TA_LINE_MAX];

	check(request_begin(&r, "alice", "sudo", 1) == REQUEST_OK &&
		  request_arg(&r, "debug") == 0 &&
		  (request_end(&r), request_is(&r, "touchauth-request 1\nuser alice\nservice "
						   "sudo\nfallback enter\narg debug\nend\n")),
	      "request", "encode", "not the expected lines");
	check(request_begin(&r, "bob", "login", 0) == REQUEST_OK &&
		  (request_end(&r),
		   request_is(&r, "touchauth-request 1\nuser bob\nservice login\nfallback "
				  "none\nend\n")),
	      "request without Enter", "encode", "fallback not none");
	check(request_begin(&r, "bob", "polkit-1", FALLBACK_FIELD) == REQUEST_OK &&
		  (request_end(&r),
		   request_is(&r, "touchauth-request 1\nuser bob\nservice polkit-1\nfallback "
				  "field\nend\n")),
	      "request beside a polkit agent's field", "encode", "fallback not field");
	check(request_begin(&r, "al\nice", "sudo", 1) == REQUEST_BAD_USER, "request user",
	      "newline", "accepted");
	check(request_begin(&r, "alice", "su\x7f", 1) == REQUEST_BAD_SERVICE, "request service",
	      "DEL", "accepted");
	memset(long_arg, 'a', sizeof(long_arg) - 4); /* "arg " + 1020 + "\n" > TA_LINE_MAX */
	long_arg[sizeof(long_arg) - 4] = '\0';
	(void)request_begin(&r, "alice", "sudo", 1);
	check(request_arg(&r, long_arg) == -1 && request_arg(&r, "a\tb") == -1 && r.nargs == 0,
	      "request arg", "too long, control byte", "accepted");
	for (int i = 0; i < TA_REQUEST_ARGS_MAX; i++)
		(void)request_arg(&r, "debug");
	check(r.nargs == TA_REQUEST_ARGS_MAX && request_arg(&r, "debug") == -1, "request args",
	      "one too many", "accepted");
}

/* The display line: an X display name only, else left out (the request stays valid). */
static void check_display(void)
{
	static struct request r;
	static char long_display[TA_DISPLAY_MAX + 2];

	check(request_begin(&r, "alice", "xlock", 0) == REQUEST_OK &&
		  request_display(&r, "localhost:10.0") == 0 &&
		  (request_end(&r),
		   request_is(&r, "touchauth-request 1\nuser alice\nservice xlock\nfallback "
				  "none\ndisplay localhost:10.0\nend\n")),
	      "request display", "encode", "not the expected lines");
	(void)request_begin(&r, "alice", "xlock", 0);
	check(request_display(&r, "") == -1 && request_display(&r, ":0 pts/7") == -1 &&
		  request_display(&r, ":0/../x") == -1 && request_display(&r, ":0\x1b[2J") == -1 &&
		  request_display(&r, "\xe2\x80\xae:0") == -1,
	      "request display", "empty, space, slash, escape, bidi", "accepted");
	memset(long_display, '0', sizeof(long_display) - 1);
	long_display[0] = ':';
	long_display[TA_DISPLAY_MAX + 1] = '\0';
	check(request_display(&r, long_display) == -1, "request display", "too long", "accepted");
	long_display[TA_DISPLAY_MAX] = '\0';
	check(request_display(&r, long_display) == 0, "request display", "at the limit", "refused");
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	run_generated();
	check_mapping();
	check_sticky();
	check_strikes();
	check_overlap();
	check_request();
	check_display();
	if (assertions_failed)
		printf("(%d assertions, %d failed)\n", assertions, assertions_failed);
	else
		printf("(%d assertions)\n", assertions);
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
