"""Loaders of multiple-choice questions: files given by path (CSQA, ARC, MMLU) and Hugging Face
datasets in the local cache (`hf:DATASET[:CONFIG][@REVISION][#SPLIT]`) or saved on disk
(`hf:PATH[#SPLIT]`)."""
