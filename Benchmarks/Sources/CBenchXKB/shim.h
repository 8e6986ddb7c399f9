#pragma once
#include <xkbcommon/xkbcommon.h>
