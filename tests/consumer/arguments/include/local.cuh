#pragma once
#define LOCAL_VALUE 1
