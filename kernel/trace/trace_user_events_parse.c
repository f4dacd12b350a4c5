// SPDX-License-Identifier: GPL-2.0-only
/*
 * user_events: the command parser, "name[ field[;field]...]".
 *
 * The grammar of the ABI since 6.4, which deployed clients speak: the name
 * runs to the first space; ';' separates fields; inside a field, words are
 * separated by exactly one space, and a type takes a second word after
 * "unsigned", "struct", "__data_loc" and "__rel_loc" (a third after
 * "__data_loc unsigned" and "__rel_loc unsigned"). Types are kept as they
 * were written: the format file shows them, and a registration of an
 * existing name is compared with it as text (uev_format_match()).
 *
 * A command becomes a struct uev_format (trace_user_events.h), which the
 * core (trace_user_events.c) turns into an event and whose dynamic fields
 * it checks in every record; KUnit tests it in trace_user_events_kunit.c.
 * Nothing here takes a lock or keeps state.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <kunit/visibility.h>
#include "trace_user_events.h"

struct uev_tmp_field {
	char	*type;
	char	*name;
	u32	size;
	u8	kind;
};

/* Record why and where parsing failed; -EINVAL. */
static int uev_fail(struct uev_err *err, enum uev_err_type type,
		    const char *buf, const char *at)
{
	if (err) {
		err->type = type;
		err->pos = at - buf;
	}
	return -EINVAL;
}

/* Type words that take the next word with them, longest first. */
static const char * const uev_long_types[] = {
	"__data_loc unsigned ", "__rel_loc unsigned ", "__data_loc ",
	"__rel_loc ", "unsigned ", "struct ",
};

static const struct uev_scalar {
	const char	*type;
	u8		size;
	const char	*conv;
} uev_scalars[] = {
	{ "u8", 1, "%u" }, { "s8", 1, "%d" }, { "char", 1, "%d" },
	{ "unsigned char", 1, "%u" }, { "u16", 2, "%u" }, { "s16", 2, "%d" },
	{ "short", 2, "%d" }, { "unsigned short", 2, "%u" },
	{ "u32", 4, "%u" }, { "s32", 4, "%d" }, { "int", 4, "%d" },
	{ "unsigned int", 4, "%u" }, { "u64", 8, "%llu" }, { "s64", 8, "%lld" },
};

static const struct uev_scalar *uev_scalar(const char *type)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(uev_scalars); i++) {
		if (!strcmp(type, uev_scalars[i].type))
			return &uev_scalars[i];
	}
	return NULL;
}

/* printf conversion of a field in print_fmt, as the ABI has shown it. */
const char *uev_field_conv(const struct uev_field *f)
{
	const struct uev_scalar *s = uev_scalar(f->type);

	if (s)
		return s->conv;
	return strstr(f->type, "char[") ? "%s" : "%llu";
}

/*
 * The N of "char[N]" or "unsigned char[N]": what follows '[' is at most
 * UEV_ARRAY_TAIL bytes, N ends at ']' and is read by kstrtouint() base 0
 * (decimal, 0x hex or 0 octal); text after ']' is ignored.
 */
static int uev_array_size(const char *type, u32 *size)
{
	const char *num = strchr(type, '[') + 1;
	size_t tail = strnlen(num, UEV_ARRAY_TAIL + 1);
	const char *end = memchr(num, ']', tail);
	char digits[UEV_ARRAY_TAIL + 1];
	unsigned int n;

	if (!tail || tail > UEV_ARRAY_TAIL || !end)
		return -EINVAL;
	memcpy(digits, num, end - num);
	digits[end - num] = '\0';
	if (kstrtouint(digits, 0, &n) || !n || n > UEV_ARRAY_MAX)
		return -EINVAL;
	*size = n;
	return 0;
}

/* Kind and size of a type written without an explicit size. */
static int uev_type_size(const char *type, struct uev_tmp_field *f)
{
	const struct uev_scalar *s = uev_scalar(type);

	if (s) {
		f->kind = UEV_FIELD_SCALAR;
		f->size = s->size;
		return 0;
	}
	if (str_has_prefix(type, "char[") ||
	    str_has_prefix(type, "unsigned char[")) {
		f->kind = UEV_FIELD_ARRAY;
		return uev_array_size(type, &f->size);
	}
	f->kind = UEV_FIELD_SCALAR;
	f->size = sizeof(u32);
	/*
	 * The filter reads a whole cpumask from a __data_loc cpumask_t field
	 * whatever its length says: refused, not an over-read.
	 */
	if (str_has_prefix(type, "__data_loc ") && !strstr(type, "cpumask_t"))
		f->kind = UEV_FIELD_DATA_LOC;
	else if (str_has_prefix(type, "__rel_loc "))
		f->kind = UEV_FIELD_REL_LOC;
	else
		return -EINVAL;
	return 0;
}

/* Length of the multi-word type prefix @s starts with, or 0. */
static size_t uev_long_type(const char *s)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(uev_long_types); i++) {
		if (str_has_prefix(s, uev_long_types[i]))
			return strlen(uev_long_types[i]);
	}
	return 0;
}

/*
 * One field, @s starting at a non-space: "type name", or "struct tag name
 * size". Words are split at single spaces, so a doubled or trailing space
 * makes an empty word, which counts.
 */
static int uev_parse_field(char *s, struct uev_tmp_field *f,
			   const char *buf, struct uev_err *err)
{
	bool is_struct = str_has_prefix(s, "struct ");
	int nwords = is_struct ? 2 : 1;
	char *word[2], *sp, *start = s;
	int n = 0;

	sp = strchr(s + uev_long_type(s), ' ');
	if (!sp)
		return uev_fail(err, UEV_ERR_BAD_FIELD, buf, start);
	*sp = '\0';
	f->type = s;
	for (s = sp + 1; s; s = sp ? sp + 1 : NULL) {
		if (n == nwords)
			return uev_fail(err, UEV_ERR_BAD_FIELD, buf, s);
		word[n++] = s;
		sp = strchr(s, ' ');
		if (sp)
			*sp = '\0';
	}
	if (n != nwords)
		return uev_fail(err, UEV_ERR_BAD_FIELD, buf, start);
	f->name = word[0];
	if (!is_struct) {
		if (!uev_type_size(f->type, f))
			return 0;
		return uev_fail(err, f->kind == UEV_FIELD_ARRAY ?
				UEV_ERR_BAD_ARRAY : UEV_ERR_BAD_TYPE, buf, start);
	}
	f->kind = UEV_FIELD_STRUCT;
	if (kstrtou32(word[1], 10, &f->size) || !f->size ||
	    f->size > UEV_FIELDS_SIZE_MAX)
		return uev_fail(err, UEV_ERR_BAD_SIZE, buf, word[1]);
	return 0;
}

/* Copy @src with its NUL to @dst; return the position of that NUL. */
static char *uev_strcpy_end(char *dst, const char *src)
{
	size_t len = strlen(src);

	memcpy(dst, src, len + 1);
	return dst + len;
}

/*
 * Fill @f, at record offset @off, from @t, copying its strings to *@str
 * and moving *@str past them; a dynamic field also fills *@loc.
 * Return: the next free entry of the dynamic field list.
 */
static struct uev_loc *uev_field_fill(struct uev_field *f,
				      const struct uev_tmp_field *t, u32 off,
				      char **str, struct uev_loc *loc)
{
	u32 word = sizeof(struct trace_entry) + off;

	f->type = *str;
	*str = uev_strcpy_end(*str, t->type) + 1;
	f->name = *str;
	*str = uev_strcpy_end(*str, t->name) + 1;
	f->offset = off;
	f->size = t->size;
	f->kind = t->kind;
	f->is_signed = f->type[0] != 'u';
	if (f->kind < UEV_FIELD_DATA_LOC)
		return loc;
	/* Any dynamic field of a char type holds a C string. */
	f->is_string = !!strstr(f->type, "char");
	*loc = (struct uev_loc){
		.word = word,
		.base = f->kind == UEV_FIELD_REL_LOC ? word + sizeof(u32) : 0,
		.is_string = f->is_string,
	};
	return loc + 1;
}

static struct uev_format *uev_format_build(const char *name,
					   struct uev_tmp_field *tmp, int n)
{
	size_t bytes = struct_size_t(struct uev_format, fields, n);
	struct uev_format *fmt;
	struct uev_loc *loc;
	char *str;
	u32 off = 0;
	int i, nr_locs = 0;

	bytes += strlen(name) + 1;
	for (i = 0; i < n; i++) {
		bytes += strlen(tmp[i].type) + strlen(tmp[i].name) + 2;
		if (tmp[i].kind >= UEV_FIELD_DATA_LOC)
			nr_locs++;
	}
	bytes += nr_locs * sizeof(*loc);

	fmt = kzalloc(bytes, GFP_KERNEL_ACCOUNT);
	if (!fmt)
		return ERR_PTR(-ENOMEM);
	fmt->nr_fields = n;
	fmt->nr_locs = nr_locs;
	loc = (struct uev_loc *)uev_format_locs(fmt);
	/* the name first: uev_format_name() finds it there */
	str = (char *)&loc[nr_locs];
	str = uev_strcpy_end(str, name) + 1;
	for (i = 0; i < n; i++) {
		loc = uev_field_fill(&fmt->fields[i], &tmp[i], off, &str, loc);
		off += tmp[i].size;
	}
	fmt->size = off;
	return fmt;
}

static int uev_parse_fields(char *args, struct uev_tmp_field *tmp, int max,
			    const char *buf, struct uev_err *err)
{
	u64 size = 0;
	char *part;
	int n = 0, i, ret;

	while ((part = strsep(&args, ";")) != NULL) {
		part = skip_spaces(part);
		if (!*part)
			continue;	/* empty field: trailing or doubled ';' */
		if (WARN_ON_ONCE(n == max))
			return -EINVAL;
		memset(&tmp[n], 0, sizeof(tmp[n]));
		ret = uev_parse_field(part, &tmp[n], buf, err);
		if (ret)
			return ret;
		/* Filters, triggers and decoders would see only the first. */
		for (i = 0; i < n; i++) {
			if (!strcmp(tmp[i].name, tmp[n].name))
				return uev_fail(err, UEV_ERR_DUP_FIELD, buf,
						tmp[n].name);
		}
		size += tmp[n++].size;
		if (size > UEV_FIELDS_SIZE_MAX)
			return uev_fail(err, UEV_ERR_TOO_BIG, buf, part);
	}
	return n;
}

/**
 * uev_cmd_name_len() - length of the event name at the start of a command
 * @cmd: "name[ fields]"
 * @err: where to say what is wrong, or NULL
 *
 * Return: the length of the name, which runs to the first space, or
 * -EINVAL when it is empty, holds a ':' (text flags, reserved by the ABI
 * and refused) or a '/', or is "." or "..": names tracefs could not show.
 */
int uev_cmd_name_len(const char *cmd, struct uev_err *err)
{
	size_t len = strchrnul(cmd, ' ') - cmd;
	const char *colon = memchr(cmd, ':', len);

	if (colon)
		return uev_fail(err, UEV_ERR_FLAGS, cmd, colon);
	if (!len || memchr(cmd, '/', len) ||
	    (cmd[0] == '.' && (len == 1 || (len == 2 && cmd[1] == '.'))))
		return uev_fail(err, UEV_ERR_BAD_NAME, cmd, cmd);
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(uev_cmd_name_len);

/**
 * uev_format_parse() - parse a user_events command into a format
 * @cmd: "name[ field[;field]...]", as given to DIAG_IOCSREG or after "u:"
 * @err: where to say what is wrong and where, or NULL
 *
 * The length of @cmd is its caller's business: DIAG_IOCSREG takes at most
 * UEV_CMD_MAX bytes, dynamic_events what fits its write buffer.
 *
 * Return: a new format (kfree() it), or ERR_PTR(-EINVAL) for malformed
 * input and ERR_PTR(-ENOMEM).
 */
struct uev_format *uev_format_parse(const char *cmd, struct uev_err *err)
{
	struct uev_tmp_field *tmp __free(kfree) = NULL;
	char *buf __free(kfree) = NULL;
	int name_len, n, max;

	name_len = uev_cmd_name_len(cmd, err);
	if (name_len < 0)
		return ERR_PTR(name_len);
	buf = kstrdup(cmd, GFP_KERNEL);
	/* every field needs a ';' before it, but the first */
	max = 1;
	for (n = name_len; cmd[n]; n++)
		max += cmd[n] == ';';
	tmp = kmalloc_array(max, sizeof(*tmp), GFP_KERNEL);
	if (!buf || !tmp)
		return ERR_PTR(-ENOMEM);

	buf[name_len] = '\0';
	n = cmd[name_len] ?
	    uev_parse_fields(buf + name_len + 1, tmp, max, buf, err) : 0;
	if (n < 0)
		return ERR_PTR(n);
	return uev_format_build(buf, tmp, n);
}
EXPORT_SYMBOL_IF_KUNIT(uev_format_parse);

/*
 * Is @word the canonical word @tok (@len bytes), or, if @tok ends its
 * field (@last), that word with the field's ';'?
 */
static bool uev_word_is(const char *word, const char *tok, size_t len,
			bool last)
{
	if (strncmp(word, tok, len))
		return false;
	return !word[len] || (last && !strcmp(word + len, ";"));
}

/*
 * Match the canonical words of @text (separated by single spaces) with the
 * words from argv[*@i] on, moving *@i past them; @text ends its field if
 * @ends. Every space separates two words, so an empty @text is one empty
 * word: no word is empty, but the ';' that ends the field matches it.
 */
static bool uev_words_match(const char *text, bool ends, int argc,
			    const char **argv, int *i)
{
	const char *end;

	do {
		end = strchrnul(text, ' ');
		if (*i >= argc ||
		    !uev_word_is(argv[*i], text, end - text, ends && !*end))
			return false;
		(*i)++;
		text = end + 1;
	} while (*end);
	return true;
}

/*
 * Match the words of @f with its canonical words, as the format file
 * spells them: those of its type (a type may be several words: "unsigned
 * int", "struct x"), its name and, for a struct, its size in decimal.
 */
static bool uev_field_match(const struct uev_field *f, int argc,
			    const char **argv, int *i)
{
	bool is_struct = f->kind == UEV_FIELD_STRUCT;
	char size[12];

	if (!uev_words_match(f->type, false, argc, argv, i) ||
	    !uev_words_match(f->name, !is_struct, argc, argv, i))
		return false;
	if (is_struct) {
		snprintf(size, sizeof(size), "%u", f->size);
		if (!uev_words_match(size, true, argc, argv, i))
			return false;
	}
	/* the field's words end with its ';', unless they end the command */
	return *i == argc || strchr(argv[*i - 1], ';');
}

/**
 * uev_format_match() - whether field words describe an event's fields
 * @fmt: the event's format
 * @argc: number of words
 * @argv: the fields of a command, split at white space
 *
 * This is how a registration of an existing name is compared with it:
 * the words up to and including one that holds a ';' (or up to the end)
 * are one field's, and word by word they must be that field's canonical
 * words (its type's, its name and, for a struct, its size), the last one
 * with the ';'. So "u32 a;u32 b", split as "u32 a; u32 b", matches an
 * event of those two fields, and so does "u32 a; u32 b;", but not "u32 a
 * u32 b". No words match an event without fields. This is the words,
 * joined by single spaces, compared with each field's text: "TYPE NAME",
 * "struct X NAME SIZE", and the ';' if the words had one.
 *
 * Return: true when every field is matched and no word is left over.
 */
bool uev_format_match(const struct uev_format *fmt, int argc,
		      const char **argv)
{
	int f, i = 0;

	if (!argc)
		return !fmt->nr_fields;
	for (f = 0; f < fmt->nr_fields; f++)
		if (!uev_field_match(&fmt->fields[f], argc, argv, &i))
			return false;
	return i == argc;
}
EXPORT_SYMBOL_IF_KUNIT(uev_format_match);

/**
 * uev_split_fields() - split the fields of a command into words
 * @args: the text after the name
 * @buf: room for the words: 2 * strlen(@args) + 1 bytes
 * @argv: room for pointers to the words
 * @max: size of @argv
 *
 * Words end at white space and after every ';', so that "a;b" reads as
 * "a; b".
 *
 * Return: the number of words, or -E2BIG when there are more than @max.
 */
int uev_split_fields(const char *args, char *buf, const char **argv, int max)
{
	int n = 0;

	while (*(args = skip_spaces(args))) {
		if (n == max)
			return -E2BIG;
		argv[n++] = buf;
		while (*args && !isspace(*args)) {
			*buf++ = *args;
			if (*args++ == ';')
				break;
		}
		*buf++ = '\0';
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(uev_split_fields);

/**
 * uev_format_print() - print a format back as a command
 * @fmt: the format
 * @m: where to print
 *
 * Prints "name type field; type field" as dynamic_events lists it, with
 * the size after struct fields.
 */
void uev_format_print(const struct uev_format *fmt, struct seq_file *m)
{
	int i;

	seq_puts(m, uev_format_name(fmt));
	for (i = 0; i < fmt->nr_fields; i++) {
		const struct uev_field *f = &fmt->fields[i];

		seq_printf(m, "%s%s %s", i ? "; " : " ", f->type, f->name);
		if (f->kind == UEV_FIELD_STRUCT)
			seq_printf(m, " %u", f->size);
	}
}
