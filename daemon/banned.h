/* SPDX-License-Identifier: GPL-2.0 */
/*
 * banned.h - functions that must not be called in mmci.
 *
 * Each has a bounded or safer replacement (strbuf_*, xsnprintf, strtok_r,
 * localtime_r). Including this last in util.h turns a call into a compile
 * error naming the banned function.
 */
#ifndef MMCI_BANNED_H
#define MMCI_BANNED_H

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef gmtime
#define gmtime(t) BANNED(gmtime)
#undef localtime
#define localtime(t) BANNED(localtime)

#endif
