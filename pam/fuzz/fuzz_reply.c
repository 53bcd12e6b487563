/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer harness for the shim's reply parser (protocol.c), with ASan and
 * UBSan.  The input is the helper's stdout; its first byte picks the chunk
 * size, so lines split across reads are covered.  Checked: no memory error,
 * every event's text is short and printable, the outcome is a real one, a
 * finished reply swallows nothing more, a believed `overlap` is a pid in
 * range (0: none), and the verdict does not depend on
 * how the bytes were split (byte by byte gives the same result).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol.h"

struct verdict {
	enum reply_event end;
	enum ta_outcome outcome;
	unsigned int messages;
	int overlap;
};

static void check_text(const char *text)
{
	size_t len = strlen(text);

	if (len < 1 || len > TA_TEXT_MAX)
		abort();
	for (size_t i = 0; i < len; i++) {
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
			abort();
	}
}

static struct verdict parse(const uint8_t *data, size_t size, size_t chunk)
{
	struct reply_parser p;
	struct verdict v = { REPLY_NEED_MORE, TA_OUTCOME_COUNT, 0, 0 };
	size_t off = 0;

	reply_init(&p);
	while (off < size && v.end != REPLY_PROTOCOL_ERROR) {
		size_t n = size - off < chunk ? size - off : chunk, pos = 0;

		while (pos < n) {
			const char *text = NULL;
			size_t used = 0;
			enum reply_event e =
			    reply_feed(&p, (const char *)data + off + pos, n - pos, &used, &text);

			if (used > n - pos || (used == 0 && e != REPLY_PROTOCOL_ERROR))
				abort();
			pos += used;
			if (e == REPLY_INFO || e == REPLY_ERROR_MSG) {
				check_text(text);
				v.messages++;
			} else if (e == REPLY_DONE) {
				if (p.outcome >= TA_OUTCOME_COUNT)
					abort();
			} else if (e == REPLY_PROTOCOL_ERROR) {
				if (p.error == NULL)
					abort();
				v.end = e;
				break;
			}
		}
		off += n;
	}
	if (v.end != REPLY_PROTOCOL_ERROR)
		v.end = reply_finish(&p);
	if (v.end == REPLY_DONE) {
		v.outcome = p.outcome;
		v.overlap = p.overlap;
		if (p.lines > TA_REPLY_LINES_MAX || p.overlap < 0 || p.overlap > TA_PID_MAX)
			abort();
	}
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct verdict whole, bytes;
	size_t chunk;

	if (size < 1)
		return 0;
	chunk = (size_t)data[0] % 64 + 1;
	whole = parse(data + 1, size - 1, chunk);
	bytes = parse(data + 1, size - 1, 1);
	if (whole.end != bytes.end || whole.outcome != bytes.outcome ||
	    whole.overlap != bytes.overlap)
		abort();
	if (whole.end == REPLY_DONE && whole.messages != bytes.messages)
		abort();
	return 0;
}
