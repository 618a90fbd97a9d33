#pragma once
#define ABSOLUTE_VALUE 2
